/**
 * The one door between the custom operations (actions/) and the engine: what a handler receives,
 * the errors it throws, the SQL builder it writes statements with, the readers of its settings, and
 * the checks every family needs (the session's tenant, uuids, an account of that tenant). Nothing
 * else in actions/ imports from engine/ (dependency-cruiser's rule `actions-through-their-api`).
 */
import type { ActionContext as EngineActionContext } from '../engine/compile/execute/actions';
import type { Queryable } from '../engine/core/db/database';
import { query, sql } from '../engine/core/db/sql';
import { RequestError } from '../engine/core/errors';
import { isUuid } from '../engine/core/uuid';

export type { ActionHandler, ActionModules } from '../engine/compile/execute/actions';
export type { Param, QueryOptions, Queryable, Row } from '../engine/core/db/database';
export {
  arrayLiteral,
  customPlansOnly,
  INSIDE,
  paramText,
  query,
  render,
  renderWith,
  sql,
  Sql,
  type SqlValue,
  type Statement,
} from '../engine/core/db/sql';
export { Lru } from '../engine/core/lru';
export { JsonRows, TextRowsWriter, type JsonColumn, type JsonKind, type TextForm } from '../engine/core/json-rows';
export { RequestError, type ErrorCode } from '../engine/core/errors';
export { httpUrl, int, positive, type Env } from '../engine/core/env';
export { isUuid } from '../engine/core/uuid';
export { createApiToken, deleteApiToken, listApiTokens } from '../engine/serve/auth/api-tokens';
export type { SignedInPage } from '../engine/serve/web/routes';
export { when } from '../engine/serve/web/pages';
export { html } from 'hono/html';
export type { EngineActionContext };

/** The caller's tenant. Handlers never take it from arguments: it comes from the session only. */
export function tenantOf(ctx: Pick<EngineActionContext, 'session'>): string {
  const tenant = ctx.session.vars['x-hasura-tenant-id'];
  if (!tenant || !isUuid(tenant))
    throw new RequestError('access-denied', 'this operation needs a tenant in the session (x-hasura-tenant-id)');
  return tenant;
}

/**
 * Refuses a read-only role (one the metadata gives no write), and any request sent by GET, what writes
 * or spends on the tenant's behalf, even where the operation is a query: `what` says what it would
 * have done.
 */
export function refuseReadOnly(
  ctx: Pick<EngineActionContext, 'session' | 'writers' | 'safeMethod'>,
  what: string,
): void {
  // A GET request is safe by HTTP's rules (and cached by CDNs): it never writes, whatever the role.
  if (ctx.safeMethod)
    throw new RequestError('method-not-allowed', `${what} is not done for a GET request: use POST`, '$', 405);
  if (ctx.writers.allowed) return;
  const may = ctx.writers.roles.length ? ctx.writers.roles.join(', ') : 'the admin role';
  throw new RequestError('permission-error', `the role "${ctx.session.role}" is read-only: ${what} is for ${may}`);
}

/** A uuid argument, checked, or a validation error naming it. */
export function uuidArg(value: unknown, path: string): string {
  if (typeof value !== 'string' || !isUuid(value))
    throw new RequestError(
      'validation-failed',
      `expected a uuid for ${path}, got ${JSON.stringify(value)}`,
      `$.${path}`,
    );
  return value.toLowerCase();
}

/**
 * Whether `account` is a cloud account of `tenant`. Callers answer "not found" alike for an account
 * of another tenant and one that does not exist, so that ids of other tenants cannot be probed.
 */
export async function isTenantAccount(db: Queryable, tenant: string, account: string): Promise<boolean> {
  const rows = await query(
    db,
    sql`SELECT 1 FROM cloud_accounts WHERE id = ${account}::uuid AND tenant = ${tenant}::uuid`,
  );
  return rows.length > 0;
}

/** `account` (a uuid argument at `path`) when it is a cloud account of `tenant`, else a validation error. */
export async function tenantAccount(db: Queryable, tenant: string, account: unknown, path: string): Promise<string> {
  const id = uuidArg(account, path);
  if (!(await isTenantAccount(db, tenant, id)))
    throw new RequestError('validation-failed', `${path} is not a cloud account of your tenant`, `$.${path}`);
  return id;
}
