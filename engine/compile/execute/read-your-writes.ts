import { Lru } from '../../core/lru';
import type { Session } from '../../core/session';

/** Sessions remembered at once; past that the oldest writer's window ends early (its reads may lag). */
const WRITERS_REMEMBERED = 10_000;

/**
 * Whose reads stay on the primary: a replica replays a write some time after the primary commits it,
 * so a client that just wrote and reads at once from a replica might not see its own write. After a
 * mutation that session's reads go to the primary for `seconds`. Kept per engine instance: behind a
 * load balancer without affinity another instance does not know of the write (README "Read replicas").
 *
 * The key is the user (x-hasura-user-id), whatever the credential and role: the browser session, an
 * API token and a JWT of one person all see that person's writes. A session without a user (the admin
 * secret without one, an anonymous role) is keyed by its role and tenant, which is coarser: more reads
 * on the primary, never fewer.
 */
export class RecentWriters {
  private readonly until = new Lru<string, number>(WRITERS_REMEMBERED);

  /** `tenantVariable`: the session variable that names the tenant (TENANT_* settings). */
  constructor(
    private readonly seconds: number,
    private readonly tenantVariable: string,
  ) {}

  wrote(session: Session): void {
    if (this.seconds > 0) this.until.set(this.key(session), Date.now() + this.seconds * 1000);
  }

  /** Whether the session wrote within the window. */
  holds(session: Session): boolean {
    const until = this.until.get(this.key(session));
    return until !== undefined && until > Date.now();
  }

  private key(session: Session): string {
    const user = session.vars['x-hasura-user-id'];
    if (user) return `user\u0000${user}`;
    return `role\u0000${session.role}\u0000${session.vars[this.tenantVariable] ?? ''}`;
  }
}
