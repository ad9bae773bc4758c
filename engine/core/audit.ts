import type { Queryable } from './db/database';
import { currentRequest } from './request-context';

/** What happened (sql/0033_audit_events.sql). */
export type AuditType =
  | 'signin'
  | 'token_exchange'
  | 'lockout'
  | 'api_token_created'
  | 'api_token_deleted'
  | 'saml_user_created'
  | 'saml_tenant_joined'
  | 'saml_roles_synced'
  | 'provider_user_created'
  | 'provider_tenant_joined'
  | 'provider_roles_synced'
  | 'user_created'
  | 'user_suspended'
  | 'user_activated'
  | 'password_set';

/**
 * One audit event: who, what, whether it worked and why not. Names, ids and counts only: never a
 * password, an API token's secret, a JWT, a hash or a cookie.
 */
export interface AuditEvent {
  type: AuditType;
  outcome: 'success' | 'failure';
  method?: 'password' | 'saml' | 'oidc' | 'email_link' | 'api_token' | 'cli' | 'graphql' | 'settings_page';
  email?: string;
  userId?: string;
  tenantId?: string;
  tokenId?: string;
  reason?: string;
  clientAddress?: string;
  detail?: Record<string, string | number | boolean | string[]>;
}

/** A sign-in or exchange refused for too many failures (throttle): who tried, and how long they must wait. */
export const recordLockout = (
  db: Queryable,
  who: Pick<AuditEvent, 'method' | 'email' | 'clientAddress'>,
  retryAfterSeconds: number,
) =>
  recordAudit(db, {
    type: 'lockout',
    outcome: 'failure',
    reason: 'too many failed attempts',
    ...who,
    detail: { retry_after_seconds: retryAfterSeconds },
  });

/** An e-mail typed at a sign-in may be anything: stored as typed, but not without bound. */
const MAX_TEXT = 320;
const clip = (s: string | undefined) => (s === undefined ? null : s.slice(0, MAX_TEXT));

/**
 * Stores the event (in `db`, which may be the transaction whose change it records, so that both
 * commit together) and tells the current request's sink (the log and /metrics). Outside a request (the
 * admin CLI run directly) it is stored only. Action handlers find their request only in mutations
 * (engine.ts runGraphql): a query's handler that recorded an event would store it without one.
 */
export async function recordAudit(db: Queryable, event: AuditEvent): Promise<void> {
  const request = currentRequest();
  await db.query(
    `INSERT INTO audit_events (type, outcome, method, email, user_id, tenant_id, token_id, reason, client_address, request_id, detail)
     VALUES ($1::text, $2::text, $3::text, $4::text, $5::uuid, $6::uuid, $7::uuid, $8::text, $9::text, $10::text, $11::jsonb)`,
    [
      event.type,
      event.outcome,
      event.method ?? null,
      clip(event.email),
      event.userId ?? null,
      event.tenantId ?? null,
      event.tokenId ?? null,
      clip(event.reason),
      clip(event.clientAddress),
      request?.id ?? null,
      JSON.stringify(event.detail ?? {}),
    ],
  );
  request?.audit?.({ ...event, requestId: request.id });
}
