import type { RolePermissions } from '../model/role-permissions';
import type { CollectContext } from './collect';
import type { ValueSource } from './ir';

/**
 * A check on a value known only when the plan runs (a variable), which a literal would have failed
 * at planning: `rule` says what is checked, execute/runtime-checks.ts what each rule demands.
 */
export interface RuntimeCheck {
  source: ValueSource;
  path: string;
  /** nonNegative: a limit or offset from a variable is not below zero. */
  rule: 'nonNegative';
}

/** What planning one operation reads (the role's permissions, the limits) and collects (checks). */
export interface PlanContext extends CollectContext {
  perms: RolePermissions;
  maxRows: number;
  maxDepth: number;
  checks: RuntimeCheck[];
}
