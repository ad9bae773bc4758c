import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { AuthConfig } from '../../core/config';
import type { Database } from '../../core/db/database';
import { Lru } from '../../core/lru';

/**
 * What one instance remembers about API tokens and users between requests, so that a request with a
 * JWT or a session cookie costs no database round trip on the hot path, while a deleted token or a
 * suspended user stops working on every instance within a second:
 *
 * - every instance LISTENs on `platform_auth`; triggers (sql/0018_auth.sql) NOTIFY it when a token is
 *   deleted (`{"token": id}`) and when a user's status or roles change (`{"user": id}`);
 * - a deleted token goes into a set of revoked ids, for good (deletion is irreversible);
 * - what was read from the database (token live, user active, roles held) is trusted for
 *   AUTH_RECHECK_SECONDS at most, and forgotten at once on a notice about it, or about everything
 *   when the listener (re)connects, since notices sent while it was away are lost. A missed notice can
 *   therefore keep a deleted token usable on one instance for AUTH_RECHECK_SECONDS, not longer.
 */
export const AUTH_CHANNEL = 'platform_auth';

/** In-process notices: an instance in this process learns of a deletion before the NOTIFY arrives. */
const localHints = new EventEmitter();
localHints.setMaxListeners(0);

/**
 * Called by deleteApiToken. It only makes the instances of this process look the token up again on
 * its next use (the deletion may still be inside a transaction that rolls back); the NOTIFY sent on
 * commit then revokes it for good.
 */
export function hintTokenDeleted(tokenId: string): void {
  localHints.emit('token', tokenId);
}

/** Why a session is refused, or null when it may go on. */
export type Refusal = 'token-deleted' | 'token-mismatch' | 'user-inactive' | 'role-revoked' | 'session-ended' | null;

interface Fact {
  /** performance.now() when the lookup started: notices after that make the fact stale. */
  at: number;
  userId: string;
  tenantId: string;
  tokenLive: boolean;
  userActive: boolean;
  roles: string[];
  /** Sessions issued before this (ms since the epoch) are ended; 0: none. */
  validAfter: number;
  /** The session of a cookie is in ended_sessions. */
  sessionEnded: boolean;
}

const MAX_ENTRIES = 10_000;
const MAX_REVOKED = 100_000;

export class Revocations {
  private revoked = new Set<string>();
  /** Hashes of signed-out session ids (ended_sessions), as notices bring them. */
  private ended = new Set<string>();
  private facts = new Lru<string, Fact>(MAX_ENTRIES);
  private pending = new Map<string, Promise<Fact | null>>();
  /** Latest notice per `token:<id>` / `user:<id>`. */
  private notices = new Map<string, number>();
  /** Facts older than this are stale: the listener (re)connected after them. */
  private since = 0;
  private stopListening?: () => Promise<void>;
  private onHint = (id: string) => this.notice(`token:${id}`);
  /** Database lookups made, for tests and measurements. */
  lookups = 0;

  constructor(
    private readonly db: Database,
    private readonly auth: AuthConfig,
    private readonly log: (entry: Record<string, unknown>) => void = () => undefined,
  ) {}

  async start(): Promise<void> {
    localHints.on('token', this.onHint);
    try {
      this.stopListening = await this.db.listen(
        AUTH_CHANNEL,
        (payload) => this.onNotify(payload),
        () => this.forgetAll(),
      );
    } catch (err) {
      this.log({
        level: 'warn',
        msg: `cannot LISTEN on ${AUTH_CHANNEL} (${(err as Error).message}): token deletions made on other instances reach this one within AUTH_RECHECK_SECONDS (${this.auth.recheckSeconds} s) only`,
      });
    }
  }

  async stop(): Promise<void> {
    localHints.off('token', this.onHint);
    await this.stopListening?.().catch(() => undefined);
    this.stopListening = undefined;
  }

  private onNotify(payload: string): void {
    let msg: { token?: unknown; user?: unknown; session?: unknown };
    try {
      msg = JSON.parse(payload);
    } catch {
      return;
    }
    if (typeof msg.token === 'string') {
      const id = msg.token.toLowerCase();
      if (this.revoked.size >= MAX_REVOKED) {
        // Forgetting is safe: everything is looked up again, and the database knows.
        this.revoked.clear();
        this.forgetAll();
      }
      this.revoked.add(id);
      this.notice(`token:${id}`);
    }
    if (typeof msg.user === 'string') this.notice(`user:${msg.user.toLowerCase()}`);
    if (typeof msg.session === 'string') {
      if (this.ended.size >= MAX_REVOKED) this.ended.clear();
      this.ended.add(msg.session);
      this.notice(`session:${msg.session}`);
    }
  }

  private notice(key: string): void {
    if (this.notices.size >= MAX_ENTRIES) {
      this.notices.clear();
      this.forgetAll();
    }
    this.notices.set(key, performance.now());
  }

  private forgetAll(): void {
    this.since = performance.now();
  }

  /** `notice`: the `token:<id>` or `session:<hash>` whose notices also make the fact stale. */
  private fresh(f: Fact, notice?: string): boolean {
    const now = performance.now();
    if (f.at < this.since || now - f.at > this.auth.recheckSeconds * 1000) return false;
    if ((this.notices.get(`user:${f.userId}`) ?? -1) >= f.at) return false;
    return !notice || (this.notices.get(notice) ?? -1) < f.at;
  }

  /** One lookup at a time per key; concurrent requests share it. */
  private lookup(key: string, notice: string | undefined, load: () => Promise<Fact | null>): Promise<Fact | null> {
    const cached = this.facts.get(key);
    if (cached && this.fresh(cached, notice)) return Promise.resolve(cached);
    let p = this.pending.get(key);
    if (!p) {
      this.lookups++;
      p = load()
        .then((f) => {
          if (f) this.facts.set(key, f);
          return f;
        })
        .finally(() => this.pending.delete(key));
      this.pending.set(key, p);
    }
    return p;
  }

  /** Whether the API token behind a JWT is still live, its user active and holding `role` in its tenant. */
  async checkToken(tokenId: string, userId: string, tenantId: string, role: string): Promise<Refusal> {
    const id = tokenId.toLowerCase();
    if (this.revoked.has(id)) return 'token-deleted';
    const f = await this.lookup(`token:${id}`, `token:${id}`, async () => {
      const at = performance.now();
      const rows = await this.db.query(
        `SELECT t.user_id::text AS user_id, t.tenant_id::text AS tenant_id, t.deleted_at IS NULL AS live, u.status,
           (SELECT coalesce(json_agg(r.role), '[]') FROM user_roles r JOIN tenant_users tu ON tu."user" = r.user_id AND tu.tenant = r.tenant_id
            WHERE r.user_id = t.user_id AND r.tenant_id = t.tenant_id AND r.entity_type = 'tenant')::text AS roles
         FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.id = $1::uuid`,
        [id],
      );
      const r = rows[0];
      if (!r) return null;
      return {
        at,
        userId: r.user_id as string,
        tenantId: r.tenant_id as string,
        tokenLive: r.live === true || r.live === 't',
        userActive: r.status === 'active',
        roles: JSON.parse(r.roles as string),
        validAfter: 0,
        sessionEnded: false,
      };
    });
    // A last look: a deletion may have been noticed while the lookup ran.
    if (!f || !f.tokenLive || this.revoked.has(id)) return 'token-deleted';
    if (f.userId !== userId.toLowerCase() || f.tenantId !== tenantId.toLowerCase()) return 'token-mismatch';
    if (!f.userActive) return 'user-inactive';
    return f.roles.includes(role) ? null : 'role-revoked';
  }

  /**
   * Whether the session of a cookie goes on: not signed out (`idHash` in ended_sessions), issued
   * (`issuedMs`) after the user's sessions_valid_after, the user active and holding `role` in the tenant.
   */
  async checkSession(
    idHash: string,
    issuedMs: number,
    userId: string,
    tenantId: string,
    role: string,
  ): Promise<Refusal> {
    if (this.ended.has(idHash)) return 'session-ended';
    const u = userId.toLowerCase();
    const t = tenantId.toLowerCase();
    const f = await this.lookup(`session:${idHash}:${u}:${t}`, `session:${idHash}`, async () => {
      const at = performance.now();
      const rows = await this.db.query(
        `SELECT u.status, coalesce(extract(epoch FROM u.sessions_valid_after) * 1000, 0)::float8 AS valid_after,
           EXISTS (SELECT 1 FROM ended_sessions e WHERE e.id_hash = $3::text) AS ended,
           (SELECT coalesce(json_agg(r.role), '[]') FROM user_roles r JOIN tenant_users tu ON tu."user" = r.user_id AND tu.tenant = r.tenant_id
            WHERE r.user_id = u.id AND r.tenant_id = $2::uuid AND r.entity_type = 'tenant')::text AS roles
         FROM users u WHERE u.id = $1::uuid`,
        [u, t, idHash],
      );
      const r = rows[0];
      if (!r) return null;
      return {
        at,
        userId: u,
        tenantId: t,
        tokenLive: true,
        userActive: r.status === 'active',
        roles: JSON.parse(r.roles as string),
        validAfter: Number(r.valid_after),
        sessionEnded: r.ended === true || r.ended === 't',
      };
    });
    if (!f || !f.userActive) return 'user-inactive';
    if (f.sessionEnded || this.ended.has(idHash) || issuedMs < f.validAfter) return 'session-ended';
    return f.roles.includes(role) ? null : 'role-revoked';
  }
}
