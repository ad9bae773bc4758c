import type { ActionContext } from '../context';
import { RequestError, sql, tenantAccount, tenantOf, uuidArg, type Sql } from '../api';

/**
 * What every ai_* catalogue operation shares: reading its `request`, confining it to the session's
 * tenant and to a cloud account of that tenant, paging, and the API's text for times and JSON.
 */

export type Args = Record<string, unknown>;

/** The reference's Error: a code a program can test and a message a person can read. */
export interface ApiError {
  code: string;
  message: string;
}

/** The request object of an operation, or a validation error naming it. */
export function requestOf(args: Args, name = 'request'): Args {
  const req = args[name];
  if (!req || typeof req !== 'object' || Array.isArray(req))
    throw new RequestError('validation-failed', `${name} is required`, `$.${name}`);
  return req as Args;
}

/** An optional string field: undefined when absent, null or empty. */
export function optString(req: Args, key: string): string | undefined {
  const v = req[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** An optional id field: undefined when absent, else a checked uuid (lower case). */
export function optUuid(req: Args, key: string, path = `request.${key}`): string | undefined {
  const v = optString(req, key);
  return v === undefined ? undefined : uuidArg(v, path);
}

/** The caller's tenant and the request's account, once the account is known to be the tenant's. */
export interface Scope {
  tenant: string;
  account: string;
}

/**
 * The tenant of the session and `request.account_id`, which must name one of its cloud accounts: an
 * account of another tenant and one that does not exist get the same answer, so ids of other tenants
 * cannot be probed.
 */
export async function accountScope(ctx: ActionContext, req: Args, path = 'request.account_id'): Promise<Scope> {
  const tenant = tenantOf(ctx).toLowerCase();
  const account = await tenantAccount(ctx.db, tenant, req.account_id, path);
  return { tenant, account };
}

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 200;

/** limit/offset of a paged list: limit defaults to DEFAULT_PAGE and is capped at MAX_PAGE. */
export function pageOf(req: Args): { limit: number; offset: number } {
  const limit = req.limit ?? DEFAULT_PAGE;
  const offset = req.offset ?? 0;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1)
    throw new RequestError('validation-failed', 'request.limit must be a positive integer', '$.request.limit');
  if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0)
    throw new RequestError('validation-failed', 'request.offset must be a non-negative integer', '$.request.offset');
  return { limit: Math.min(limit, MAX_PAGE), offset };
}

/** A timestamptz column (named by code) as the reference's `timestamp` text: ISO 8601 in UTC, no zone suffix. */
export const ts = (column: string): Sql => sql.text(`(to_json(${column} AT TIME ZONE 'UTC') #>> '{}')`);

/** A jsonb value read as text (both drivers then agree), parsed back. */
export const json = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : (value ?? null));

/** A number column (double precision, count) as a number, whatever the driver made of it. */
export const num = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

export const notFound = (what: string, id: string): ApiError => ({
  code: 'not-found',
  message: `no ${what} ${id} in this account`,
});
