import type { ActionContext } from '../engine/execute/actions';
import { RequestError } from '../engine/plan/errors';
import { parseSelector, type LogSelector } from './logs/selector';
import { tenantOf, uuidArg } from './session';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 5000;

interface LogsQueryInput { account_id: string; query: string; start?: string | null; end?: string | null; limit?: number | null }

/**
 * The selector as SQL over the built-in `logs` table. Equality matchers become one jsonb containment
 * (`labels @> {...}`), which the GIN index serves; the others are checked on the rows it finds.
 */
export function selectorSql(sel: LogSelector, params: unknown[]): string[] {
  const bind = (v: unknown, cast: string) => {
    params.push(v);
    return `$${params.length}::${cast}`;
  };
  const where: string[] = [];
  const equal = Object.fromEntries(sel.matchers.filter((m) => m.op === '=' && m.value !== '').map((m) => [m.label, m.value]));
  if (Object.keys(equal).length) where.push(`labels @> ${bind(JSON.stringify(equal), 'jsonb')}`);
  for (const m of sel.matchers) {
    const label = () => `coalesce(labels ->> ${bind(m.label, 'text')}, '')`;
    if (m.op === '=' && m.value === '') where.push(`${label()} = ''`);
    if (m.op === '!=') where.push(`${label()} <> ${bind(m.value, 'text')}`);
    // Loki anchors label regular expressions at both ends.
    const ci = m.insensitive ? '*' : '';
    if (m.op === '=~') where.push(`${label()} ~${ci} ${bind(`^(?:${m.value})$`, 'text')}`);
    if (m.op === '!~') where.push(`${label()} !~${ci} ${bind(`^(?:${m.value})$`, 'text')}`);
  }
  for (const f of sel.filters) {
    if (f.op === '|=') where.push(`strpos(message, ${bind(f.value, 'text')}) > 0`);
    if (f.op === '!=') where.push(`strpos(message, ${bind(f.value, 'text')}) = 0`);
    if (f.op === '|~') where.push(`message ~${f.insensitive ? '*' : ''} ${bind(f.value, 'text')}`);
    if (f.op === '!~') where.push(`message !~${f.insensitive ? '*' : ''} ${bind(f.value, 'text')}`);
  }
  return where;
}

export async function logs_query(args: Record<string, unknown>, ctx: ActionContext) {
  const req = args.request as LogsQueryInput;
  const tenant = tenantOf(ctx);
  const account = uuidArg(req.account_id, 'request.account_id');
  const limit = req.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 0 || limit > MAX_LIMIT) {
    throw new RequestError('validation-failed', `request.limit must be between 0 and ${MAX_LIMIT}`, '$.request.limit');
  }
  if (req.start && req.end && Date.parse(req.start) > Date.parse(req.end)) {
    throw new RequestError('validation-failed', 'request.start is after request.end', '$.request.start');
  }
  const params: unknown[] = [tenant, account];
  const where = ['tenant_id = $1::uuid', 'cloud_account_id = $2::uuid', ...selectorSql(parseSelector(req.query), params)];
  if (req.start) where.push(`ts >= $${params.push(req.start)}::timestamptz`);
  if (req.end) where.push(`ts <= $${params.push(req.end)}::timestamptz`);
  const rows = await ctx.db.query(
    `SELECT to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS timestamp, severity, message, labels::text AS labels
       FROM logs WHERE ${where.join(' AND ')} ORDER BY ts DESC, id DESC LIMIT ${limit}`,
    params.map((p) => (p === null ? null : String(p))),
  );
  return rows.map((r) => ({ timestamp: r.timestamp, severity: r.severity, message: r.message, labels: JSON.parse(String(r.labels)) }));
}
