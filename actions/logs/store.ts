import type { LogSelector } from './selector';

/**
 * The built-in log store: SQL over the `logs` table for a parsed selector.
 *
 * How it stays fast over millions of lines (indexes in sql/0008 and sql/0026):
 * - first the RECENT_WINDOW newest lines of the account in the range, read newest first from
 *   logs_account_ts_id_idx (the account and the order in one btree), the selector checked on each and
 *   the walk stopped at the limit: a selector that matches often is answered in milliseconds;
 * - when that window yields fewer than the limit and older lines exist, a second statement over the
 *   whole range, where every `=` matcher is one jsonb containment, `labels @> $n::jsonb`, answered by
 *   the GIN jsonb_path_ops index on labels (a bitmap of the lines carrying all those labels);
 * - the other matchers, the regular expressions and the line filters are checked on the lines those
 *   indexes yield: none can use an index without pg_trgm, which PGlite does not have.
 * All values, regular expressions included, are bound parameters; the text only depends on the
 * selector's shape.
 */
export interface LogsStatement {
  text: string;
  params: (string | null)[];
}

export interface StoreQuery {
  tenant: string;
  account: string;
  selector: LogSelector;
  start?: string;
  end?: string;
  limit: number;
}

/** `WHERE` conditions of the selector, binding into `params`. */
export function selectorConditions(sel: LogSelector, params: (string | null)[]): string[] {
  const bind = (v: string, cast: string) => `$${params.push(v)}::${cast}`;
  const where: string[] = [];
  const equal: Record<string, string> = {};
  for (const m of sel.matchers) if (m.op === '=' && m.value !== '') equal[m.label] = m.value;
  // Two = matchers on one label with different values cannot both hold; containment of the last alone would say they can.
  const conflicting = sel.matchers.some((m) => m.op === '=' && m.value !== '' && equal[m.label] !== m.value);
  if (conflicting) where.push('false');
  if (Object.keys(equal).length) where.push(`labels @> ${bind(JSON.stringify(equal), 'jsonb')}`);
  for (const m of sel.matchers) {
    // A label a line does not carry reads as the empty value, as in Loki.
    const label = () => `coalesce(labels ->> ${bind(m.label, 'text')}, '')`;
    if (m.op === '=' && m.value === '') where.push(`${label()} = ''`);
    else if (m.op === '!=') where.push(`${label()} <> ${bind(m.value, 'text')}`);
    else if (m.op === '=~')
      where.push(`${label()} ~${m.regex!.insensitive ? '*' : ''} ${bind(m.regex!.pattern, 'text')}`);
    else if (m.op === '!~')
      where.push(`${label()} !~${m.regex!.insensitive ? '*' : ''} ${bind(m.regex!.pattern, 'text')}`);
  }
  for (const f of sel.filters) {
    // strpos, not LIKE: the needle needs no escaping of % and _.
    if (f.op === '|=') where.push(`strpos(message, ${bind(f.value, 'text')}) > 0`);
    else if (f.op === '!=') where.push(`strpos(message, ${bind(f.value, 'text')}) = 0`);
    else if (f.op === '|~') where.push(`message ~${f.regex!.insensitive ? '*' : ''} ${bind(f.regex!.pattern, 'text')}`);
    else where.push(`message !~${f.regex!.insensitive ? '*' : ''} ${bind(f.regex!.pattern, 'text')}`);
  }
  return where;
}

/**
 * How many of the newest lines of the account (in the time range) are read first, through
 * logs_account_ts_id_idx, before the labels' GIN index is asked instead. Loki's way: most selectors
 * match often enough that the newest lines hold the answer, and reading them newest first stops at
 * the limit. PostgreSQL cannot know that: the label regular expressions and line filters get
 * default selectivities, so on its own it reads every line of the GIN bitmap (a million rows for
 * `{namespace="production"}`) to sort them. A rare selector pays this window (milliseconds) and then
 * the second statement.
 */
export const RECENT_WINDOW = 20000;

interface Built {
  params: (string | null)[];
  scope: string[];
  selector: string[];
  limit: string;
}

function build(q: StoreQuery): Built {
  const params: (string | null)[] = [q.tenant, q.account];
  const scope = ['tenant_id = $1::uuid', 'cloud_account_id = $2::uuid'];
  if (q.start) scope.push(`ts >= $${params.push(q.start)}::timestamptz`);
  if (q.end) scope.push(`ts <= $${params.push(q.end)}::timestamptz`);
  const selector = selectorConditions(q.selector, params);
  return { params, scope, selector, limit: `$${params.push(String(q.limit))}::int` };
}

const and = (conds: string[]) => (conds.length ? conds.join('\n     AND ') : 'true');
const NEWEST = 'ORDER BY ts DESC, id DESC';
/** The lines of `from` as the answer's JSON text, newest first. */
const linesJson = (
  from: string,
) => `(SELECT coalesce(json_agg(json_build_object('timestamp', to_char(l.ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
     'severity', l.severity, 'message', l.message, 'labels', l.labels) ORDER BY l.ts DESC, l.id DESC), '[]')::text FROM ${from} l)`;

/**
 * First statement, one row: `owned` (the account is the tenant's: folded in to save a round trip),
 * `lines` (JSON text, newest first) of the selector over the RECENT_WINDOW newest lines, and
 * `complete`: whether they are the answer (`limit` found, or the window held every line of the
 * range). When not, rangeStatement answers.
 */
export function logsStatement(q: StoreQuery): LogsStatement {
  const b = build(q);
  const text = `WITH recent AS (
  SELECT id, ts, severity, message, labels
    FROM (SELECT id, ts, severity, message, labels FROM logs WHERE ${and(b.scope)} ${NEWEST} LIMIT ${RECENT_WINDOW}) r
   WHERE ${and(b.selector)}
   ${NEWEST} LIMIT ${b.limit})
SELECT EXISTS (SELECT 1 FROM cloud_accounts a WHERE a.id = $2::uuid AND a.tenant = $1::uuid) AS owned,
  CASE WHEN (SELECT count(*) FROM recent) >= ${b.limit} THEN true
       ELSE (SELECT count(*) FROM (SELECT 1 FROM logs WHERE ${and(b.scope)} ${NEWEST} LIMIT ${RECENT_WINDOW}) w) < ${RECENT_WINDOW} END AS complete,
  ${linesJson('recent')} AS lines`;
  return { text, params: b.params };
}

/** Second statement: the selector over the whole range, through the indexes the planner picks; one row, `lines`. */
export function rangeStatement(q: StoreQuery): LogsStatement {
  const b = build(q);
  const text = `SELECT ${linesJson(`(SELECT id, ts, severity, message, labels FROM logs
   WHERE ${and([...b.scope, ...b.selector])}
   ${NEWEST} LIMIT ${b.limit})`)} AS lines`;
  return { text, params: b.params };
}
