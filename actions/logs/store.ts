import { customPlansOnly, render, sql, type Sql, type Statement } from '../api';
import type { LogSelector } from './selector';

/**
 * The built-in log store: SQL over the `logs` table for a parsed selector.
 *
 * How it stays fast over millions of lines (indexes in sql/0008 and sql/0026):
 * - first the RECENT_WINDOW newest lines of the account in the range, read newest first from
 *   logs_account_ts_id_idx (the account and the order in one btree), the selector checked on each and
 *   the walk stopped at the limit: a selector that matches often is answered in milliseconds;
 * - when that window yields fewer than the limit and older lines exist, a second statement over the
 *   whole range, where every `=` matcher is one jsonb containment, `labels @> <value>::jsonb`, answered by
 *   the GIN jsonb_path_ops index on labels (a bitmap of the lines carrying all those labels);
 * - the other matchers, the regular expressions and the line filters are checked on the lines those
 *   indexes yield: none can use an index without pg_trgm, which PGlite does not have.
 * All values, regular expressions included, are bound parameters (the `sql` builder of actions/api.ts
 * numbers them); the text only depends on the selector's shape.
 */
export interface StoreQuery {
  tenant: string;
  account: string;
  selector: LogSelector;
  start?: string;
  end?: string;
  limit: number;
}

/**
 * `WHERE` conditions of the selector, its values bound, most telling and cheapest first: in
 * recentLines they are one CASE (`often`), which PostgreSQL checks in the order written and cannot
 * reorder as it does separate conditions. Required substrings first (a byte search of the message,
 * and a rare word drops most lines at once), then the label containment (one walk of the labels),
 * then excluded substrings (`!=`: they drop few lines, so they are searched on the lines the labels
 * kept), the other label comparisons (each takes a label out of the jsonb), and the regular
 * expressions last. `statement-ab`, one connection, PostgreSQL's CPU a statement:
 * - `{namespace="production", app=~"api.*", level!="debug"} |= "timeout"` over a window of 4,655
 *   lines: 6.6 ms with the line filter last, 4.9 with it first;
 * - `{namespace="staging", app="web-frontend"} != "health"` over 4,863 lines: 2,975 µs with the
 *   excluded substring first, 2,792 after the containment.
 */
export function selectorConditions(sel: LogSelector): Sql[] {
  const where: Sql[] = [];
  const equal: Record<string, string> = {};
  for (const m of sel.matchers) if (m.op === '=' && m.value !== '') equal[m.label] = m.value;
  // Two = matchers on one label with different values cannot both hold; containment of the last alone would say they can.
  const conflicting = sel.matchers.some((m) => m.op === '=' && m.value !== '' && equal[m.label] !== m.value);
  if (conflicting) where.push(sql`false`);
  // The parser gives a matcher or filter its translated `regex` exactly when its operator is one.
  for (const f of sel.filters) if (f.op === '|=') where.push(filterCondition(f));
  if (Object.keys(equal).length) where.push(sql`labels @> ${JSON.stringify(equal)}::jsonb`);
  for (const f of sel.filters) if (f.op === '!=') where.push(filterCondition(f));
  for (const m of [...sel.matchers.filter((x) => !x.regex), ...sel.matchers.filter((x) => x.regex)]) {
    const condition = matcherCondition(m);
    if (condition) where.push(condition);
  }
  for (const f of sel.filters) if (f.regex) where.push(filterCondition(f));
  return where;
}

/** `~` or `~*` (case-insensitive), negated by `!`. */
const regexOp = (negated: boolean, insensitive: boolean): Sql =>
  sql.text(`${negated ? '!' : ''}~${insensitive ? '*' : ''}`);

/** A label matcher other than a non-empty `=` (those are the one containment above). */
function matcherCondition(m: LogSelector['matchers'][number]): Sql | undefined {
  // A label a line does not carry reads as the empty value, as in Loki.
  const label = () => sql`coalesce(labels ->> ${m.label}::text, '')`;
  if (m.op === '=' && m.value === '') return sql`${label()} = ''`;
  if (m.op === '!=') return sql`${label()} <> ${m.value}::text`;
  if (m.op === '=~' || m.op === '!~')
    return sql`${label()} ${regexOp(m.op === '!~', m.regex!.insensitive)} ${m.regex!.pattern}::text`;
  return undefined;
}

function filterCondition(f: LogSelector['filters'][number]): Sql {
  // strpos, not LIKE: the needle needs no escaping of % and _.
  if (f.op === '|=') return sql`strpos(message, ${f.value}::text) > 0`;
  if (f.op === '!=') return sql`strpos(message, ${f.value}::text) = 0`;
  return sql`message ${regexOp(f.op === '!~', f.regex!.insensitive)} ${f.regex!.pattern}::text`;
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
  /** The tenant, the account and the time range. */
  scope: Sql[];
  /** The account and the time range: the columns of logs_account_ts_id_idx. */
  span: Sql[];
  selector: Sql[];
  limit: Sql;
}

function build(q: StoreQuery): Built {
  const span = [sql`cloud_account_id = ${q.account}::uuid`];
  if (q.start) span.push(sql`ts >= ${q.start}::timestamptz`);
  if (q.end) span.push(sql`ts <= ${q.end}::timestamptz`);
  return {
    scope: [sql`tenant_id = ${q.tenant}::uuid`, ...span],
    span,
    selector: selectorConditions(q.selector),
    limit: sql`${String(q.limit)}::int`,
  };
}

const and = (conds: Sql[]): Sql => (conds.length ? sql.join(conds, '\n     AND ') : sql`true`);
const NEWEST = sql`ORDER BY ts DESC, id DESC`;
const WINDOW = sql.text(String(RECENT_WINDOW));
/**
 * One row over the lines of `from`: `found` (how many) and `lines`, their JSON text, newest first,
 * each with the keys of index.ts's LINE_KEYS in that order. None is null: the columns are NOT NULL,
 * and labels is an object, since a selector has a matcher that needs a label (selector.ts refuses
 * one whose matchers all match empty). Byte-compact but for the labels (jsonb writes `{"k": "v"}`):
 * each line is row_to_json of a LATERAL subquery that names its values (json_build_object writes
 * `"k" : v`), joined by string_agg (json_agg joins with `, `).
 */
const linesOf = (
  from: Sql,
) => sql`SELECT count(*) AS found, coalesce('[' || string_agg(row_to_json(e)::text, ',' ORDER BY l.ts DESC, l.id DESC) || ']', '[]') AS lines
  FROM ${from} l CROSS JOIN LATERAL (SELECT to_char(l.ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "timestamp",
     l.severity AS "severity", l.message AS "message", l.labels AS "labels") e`;

/**
 * The selector's conditions as one the planner rates as matching half the lines (its default for a
 * boolean expression it has no statistics for), which is this window's bet. Left to themselves, a
 * label containment and a line filter are rated at a few lines in thousands; the planner then expects
 * to read the whole window before `limit` lines match, and sorts it (a one-hour window of 9,400 lines:
 * 11 ms) where walking logs_account_ts_id_idx newest first stops at the limit (3 ms). Same meaning:
 * in a WHERE, false and null both drop the line.
 */
const often = (condition: Sql): Sql => sql`CASE WHEN ${condition} THEN true ELSE false END`;

/**
 * How many lines of the account the range holds, counted up to the window's size: whether the window
 * held them all. It leaves the tenant out so that logs_account_ts_id_idx alone answers it (an index-only
 * scan), where the tenant check would read every line. Lines of the account under another tenant,
 * which the schema does not forbid, can only make the count larger: then the second statement runs
 * for nothing, and its answer is still the tenant's lines only.
 */
function rangeHoldsMore(b: Built): Sql {
  return sql`(SELECT count(*) FROM (SELECT 1 FROM logs WHERE ${and(b.span)} ${NEWEST} LIMIT ${WINDOW}) w) >= ${WINDOW}`;
}

/**
 * Both statements are prepared (their parsing and analysis paid once per connection) but planned for
 * each run's values: a generic plan cannot tell how many lines the account has in the range, and may
 * sort them all where walking logs_account_ts_id_idx newest first stops at the limit. The column is
 * top-level: PostgreSQL drops a subquery's unused columns before costing the plan. `statement-ab`,
 * logs_selector's first statement on one connection, PostgreSQL's CPU a run: 2,319 µs unprepared
 * (its values inlined), 2,039 prepared with this column, 1,831 prepared on its generic plan.
 */
const PLANNED_EACH_RUN = customPlansOnly('logs');

/**
 * First statement, one row: `owned` (the account is the tenant's: folded in to save a round trip),
 * `lines` (JSON text, newest first) of the selector over the RECENT_WINDOW newest lines, and
 * `complete`: whether they are the answer (`limit` found, or the window held every line of the
 * range). When not, rangeLines answers. The matched lines are aggregated once, in a subquery: a CTE
 * read twice (to count them and to write them) cost PostgreSQL 8-20% more CPU on logs_selector
 * (`statement-ab`, one connection, three runs). The count of the range is an InitPlan, run only when
 * `limit` lines were not found.
 */
export function recentLines(q: StoreQuery): Sql {
  const b = build(q);
  const matched = sql`(SELECT id, ts, severity, message, labels
    FROM (SELECT id, ts, severity, message, labels FROM logs WHERE ${and(b.scope)} ${NEWEST} LIMIT ${WINDOW}) r
   WHERE ${often(and(b.selector))}
   ${NEWEST} LIMIT ${b.limit})`;
  return sql`SELECT EXISTS (SELECT 1 FROM cloud_accounts a WHERE a.id = ${q.account}::uuid AND a.tenant = ${q.tenant}::uuid) AS owned,
  CASE WHEN m.found >= ${b.limit} THEN true ELSE NOT ${rangeHoldsMore(b)} END AS complete,
  m.lines, ${PLANNED_EACH_RUN}
FROM (${linesOf(matched)}) m`;
}

/** Second statement: the selector over the whole range, through the indexes the planner picks; one row, `lines`. */
export function rangeLines(q: StoreQuery): Sql {
  const b = build(q);
  const lines = linesOf(sql`(SELECT id, ts, severity, message, labels FROM logs
   WHERE ${and([...b.scope, ...b.selector])}
   ${NEWEST} LIMIT ${b.limit})`);
  return sql`SELECT m.lines, ${PLANNED_EACH_RUN} FROM (${lines}) m`;
}

/** The first statement rendered (text and parameters), for the benchmark's EXPLAIN. */
export const logsStatement = (q: StoreQuery): Statement => render(recentLines(q));

/** The second statement rendered, for the benchmark's EXPLAIN. */
export const rangeStatement = (q: StoreQuery): Statement => render(rangeLines(q));
