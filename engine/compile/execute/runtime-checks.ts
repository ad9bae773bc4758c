import { RequestError } from '../../core/errors';
import type { Session } from '../../core/session';
import type { RuntimeCheck } from '../plan/context';
import type { Variables } from '../plan/values';
import { resolveSource } from './params';

/** What each rule demands of a value known only when the plan runs, and the error when it fails. */
const RULES: Record<RuntimeCheck['rule'], { holds: (value: unknown) => boolean; message: string }> = {
  // A variable's limit or offset: a negative one is refused, as a literal one is when planning.
  nonNegative: { holds: (v) => typeof v !== 'number' || v >= 0, message: 'expecting a non-negative integer' },
};

/** Refuses the request at the first check whose value, from this request's variables, fails its rule. */
export function assertRuntimeChecks(checks: readonly RuntimeCheck[], vars: Variables, session: Session): void {
  for (const c of checks) {
    const rule = RULES[c.rule];
    if (!rule.holds(resolveSource(c.source, vars, session)))
      throw new RequestError('validation-failed', rule.message, c.path);
  }
}
