import type { ActionContext } from '../context';
import { isTenantAccount, JsonRows, query, RequestError, tenantOf, uuidArg, type JsonColumn } from '../api';
import { queryLoki, type LogLine } from './loki';
import { parseSelector } from './selector';
import { rangeLines, recentLines, type StoreQuery } from './store';

/**
 * logs_query: a Loki-style selector over the account's log lines, newest first. The built-in store
 * (the `logs` table, ./logs/store.ts) answers unless LOKI_URL is set; then Loki does (./logs/loki.ts).
 * The tenant is the session's; the account must be one of its accounts on both backends.
 */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 5000;

interface LogsQueryInput {
  account_id?: unknown;
  query?: unknown;
  start?: unknown;
  end?: unknown;
  limit?: unknown;
}

/** ISO 8601 date or date-time; without a zone it is UTC. Normalised to an instant in UTC. */
const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|z|[+-]\d{2}:?\d{2})?)?$/;

function instant(value: unknown, name: 'start' | 'end'): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const text = typeof value === 'string' ? value.trim().replace(' ', 'T') : '';
  let ms = NaN;
  if (ISO.test(text)) {
    const zoned =
      text.length === 10 ? `${text}T00:00:00Z` : /(?:Z|z|[+-]\d{2}:?\d{2})$/.test(text.slice(10)) ? text : `${text}Z`;
    ms = Date.parse(zoned);
  }
  if (Number.isNaN(ms))
    throw new RequestError(
      'validation-failed',
      `request.${name} must be an ISO 8601 date-time (e.g. 2026-02-15T00:00:00Z), got ${JSON.stringify(value)}`,
      `$.request.${name}`,
    );
  return new Date(ms).toISOString();
}

/** The keys of each line of the store's JSON (store.ts linesJson), in FetchLogResponse's order. */
const LINE_KEYS: JsonColumn[] = [
  { key: 'timestamp', kind: 'string', nullable: false },
  { key: 'severity', kind: 'string', nullable: false },
  { key: 'message', kind: 'string', nullable: false },
  { key: 'labels', kind: 'any', nullable: false },
];

export async function logs_query(args: Record<string, unknown>, ctx: ActionContext): Promise<LogLine[] | JsonRows> {
  const req = (args.request ?? {}) as LogsQueryInput;
  const tenant = tenantOf(ctx);
  const account = uuidArg(req.account_id, 'request.account_id');
  const limit = req.limit ?? DEFAULT_LIMIT;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new RequestError(
      'validation-failed',
      `request.limit must be an integer from 1 to ${MAX_LIMIT}`,
      '$.request.limit',
    );
  }
  const start = instant(req.start, 'start');
  const end = instant(req.end, 'end');
  if (start && end && start > end)
    throw new RequestError('validation-failed', 'request.start is after request.end', '$.request.start');
  const selector = parseSelector(req.query);

  const notOwned = () =>
    new RequestError(
      'validation-failed',
      'request.account_id is not an account of your tenant',
      '$.request.account_id',
    );
  const loki = ctx.config.logs.lokiUrl;
  if (loki) {
    if (!(await isTenantAccount(ctx.db, tenant, account))) throw notOwned();
    return queryLoki(
      { lokiUrl: loki, lokiTenant: ctx.config.logs.lokiTenant, lokiTimeoutMs: ctx.config.logs.lokiTimeoutMs },
      { account, selector, start, end, limit },
    );
  }
  // Both statements are prepared, and planned with their values every time (store.ts, PLANNED_EACH_RUN).
  const q: StoreQuery = { tenant, account, selector, start, end, limit };
  const [row] = await query(ctx.db, recentLines(q));
  if (row.owned !== true && row.owned !== 't') throw notOwned();
  // The lines' JSON as PostgreSQL wrote it: put into the answer as it is where the selection is all four.
  if (row.complete === true || row.complete === 't') return new JsonRows(String(row.lines), LINE_KEYS);
  const [all] = await query(ctx.db, rangeLines(q));
  return new JsonRows(String(all.lines), LINE_KEYS);
}
