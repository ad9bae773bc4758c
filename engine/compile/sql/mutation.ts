import type { Column } from '../model/model-types';
import type {
  Assignment,
  BoolExp,
  Field,
  JsonbOperator,
  MutationField,
  MutationOutput,
  UpdateField,
  ValueRef,
} from '../plan/ir';
import { boolExpSql } from './bool-exp';
import { NestedInsertWriter, onConflictSql } from './nested-insert';
import { arrayText, nameText, objectText, type JsonValue } from './json-text';
import { joinedRowJson } from './select';
import { castValue, cohortType, ident, tableName, SqlWriter, type JsonOutput } from './writer';
import { cohortPlaceholders, cohortsSql } from './multiplex';

export interface MutationStatement {
  alias: string;
  /**
   * Returns one row: `out` (the field's JSON as text) and `ok` (the permission check held); when
   * `output` is set, `rows` (the changed rows as JSON text) instead of `out`.
   */
  text: string;
  writer: SqlWriter;
  /** The output, when a second statement computes it over the changed rows. */
  output?: OutputStatement;
  /**
   * The same change as a statement that may run alone, outside a transaction: it answers `out` only,
   * and instead of answering a refusal it fails, so that PostgreSQL undoes the change (see loneSql).
   * Its last placeholder is the bytes the answer may have.
   */
  lone?: { text: string; bytesParam: number; batch?: BatchedChange };
}

/**
 * A lone insert of many requests at once, as one statement (the engine's coalescer,
 * execute/coalesce.ts): placeholders $1..$cohortParams are arrays holding each request's value of the
 * lone statement's placeholder of that number (the last its answer's byte limit), unnested as
 * `cohortTypes`. It answers a row per request, `__cohort` (from 1) and its `out`, and refuses as the
 * lone statement does: by failing, which undoes every request's rows.
 */
export interface BatchedChange {
  text: string;
  cohortParams: number;
}

/**
 * An insert's rows as a FROM item and what it reads of it: what a batch (batchedInsertSql) needs to
 * read each request's rows in turn. `count` is how many rows a request inserts.
 */
interface InsertRows {
  head: string;
  select: string;
  /** A FROM item read for each request and the order of its rows there; none: one row a request. */
  from?: string;
  order?: string;
  count: string;
}

/** The changed rows, as the statements' answers read them: the CTE of the change. */
const CHANGED = '"_m"';

/** The marks of the errors a lone mutation statement fails with: its check failed, its answer too large. */
export const LONE_REFUSAL = { check: 'engine-refusal:check', size: 'engine-refusal:size' } as const;

/**
 * A mutation statement that refuses by failing. SQL has no RAISE: the refusal is a cast to integer of
 * a text that says which (and the answer's size), made from a row value so that PostgreSQL cannot
 * fold it into an error at planning. `answer` (answerSql) is a subquery that OFFSET 0 keeps PostgreSQL
 * from pulling up into the CASE, which would build the answer once per mention of it.
 */
function loneSql(change: string, answer: string, bytesParam: number): string {
  return `WITH "_m" AS (${change}) SELECT ${loneOut(bytesParam)} AS "out" FROM (${answer} OFFSET 0) AS "_o"`;
}

/** The lone statement's answer over its answer row `_o`: its `out`, or the refusal that fails the statement. */
function loneOut(bytesParam: number): string {
  const refuse = (mark: string, value: string) => `('${mark} ' || ${value})::integer::text`;
  const size = 'coalesce(octet_length("_o"."out"), 4)';
  return `CASE WHEN NOT "_o"."ok" THEN ${refuse(LONE_REFUSAL.check, '"_o"."ok"')} WHEN ${size} > $${bytesParam}::bigint THEN ${refuse(LONE_REFUSAL.size, size)} ELSE "_o"."out" END`;
}

/**
 * The types a batch unnests its cohorts' values as: each placeholder's (writer.ts cohortType), JSON as
 * text (read by the statement's own `::text::json`, so parsed once), and the byte limit's bigint.
 */
function batchTypes(w: SqlWriter): (string | undefined)[] {
  const types = w.params.map((slot) =>
    slot.sqlType === 'json' || slot.sqlType === 'jsonb' ? 'text' : cohortType(slot),
  );
  return [...types, 'bigint'];
}

/**
 * The lone insert of many requests as one statement (BatchedChange). The rows are inserted request
 * after request, each request's in its order, so that RETURNING gives them in that order (as the
 * lone statement's `returning` relies on too): the n-th request's rows are those numbered after the
 * rows of the requests before it, which its `count` tells. Each request's answer is then the lone
 * statement's, over its own rows (`answerOver`), with its own values.
 */
function batchedInsertSql(
  rows: InsertRows,
  answerOver: (source: string) => string,
  bytesParam: number,
  types: readonly (string | undefined)[],
): BatchedChange {
  const own = `(SELECT * FROM "_b" WHERE "_b"."__row" > _c."__to" - _c."__rows" AND "_b"."__row" <= _c."__to")`;
  const from = rows.from ? ` CROSS JOIN LATERAL ${rows.from}` : '';
  const order = rows.order ? `, ${rows.order}` : '';
  const insert = `${rows.head} SELECT ${rows.select} FROM "_c" AS _c${from} ORDER BY _c."__cohort"${order} RETURNING *`;
  const counted = `SELECT _c.*, sum(${rows.count}) OVER (ORDER BY _c."__cohort") AS "__to", ${rows.count} AS "__rows" FROM "_c" AS _c`;
  const body = `"_k" AS (${counted}), "_a" AS (${insert}), "_b" AS (SELECT "_a".*, row_number() OVER () AS "__row" FROM "_a") SELECT _c."__cohort" AS "__cohort", ${loneOut(bytesParam)} AS "out" FROM "_k" AS _c CROSS JOIN LATERAL (${answerOver(own)} OFFSET 0) AS "_o" ORDER BY _c."__cohort"`;
  const text = `WITH "_c" AS (SELECT * FROM ${cohortsSql(bytesParam, types)}), ${cohortPlaceholders(body, bytesParam, types)}`;
  return { text, cohortParams: bytesParam };
}

/**
 * The second statement of a mutation: it returns `out`, computed over the changed rows, which it takes
 * at placeholder `rowsParam` as the first statement returned them (`rows`); the writer's parameters
 * are the plan's values, at the other placeholders.
 */
export interface OutputStatement {
  text: string;
  writer: SqlWriter;
  rowsParam: number;
  /** When `ok` is false: a statement over the same rows returning `refused`, the path of the rows refused. */
  refusal?: OutputStatement;
}

/** Relationships in the output read tables, which a statement sees as they were before its own changes. */
function readsRelationships(out: MutationOutput): boolean {
  const relationship = (f: { kind: string }) =>
    f.kind === 'object' || f.kind === 'array' || f.kind === 'arrayAggregate';
  return out.fields.some((f) => relationship(f) || (f.kind === 'returning' && f.fields.some(relationship)));
}

function insertSql(m: Extract<MutationField, { kind: 'insert' }>, w: SqlWriter): { sql: string; rows?: InsertRows } {
  // No object (`objects: []`): no row, so affected_rows 0 and no returning, as Hasura answers.
  if (m.rows.length === 0) return { sql: `SELECT * FROM ${tableName(m.table)} WHERE false` };
  const columns: Column[] = [];
  for (const row of m.rows) for (const a of row) if (!columns.includes(a.column)) columns.push(a.column);
  if (columns.length === 0) columns.push(m.table.columns[0]);
  const packed = packedRows(m.rows, columns);
  const read = packed
    ? rowsSql(packed, w)
    : m.rows.length === 1
      ? oneRowSql(m.rows[0], columns, w)
      : { sql: valuesSql(m.rows, columns, w) };
  const head = `INSERT INTO ${tableName(m.table)} AS "_i" (${columns.map((c) => ident(c.name)).join(', ')})`;
  let sql = `${head} ${read.sql}`;
  // ON CONFLICT may insert fewer rows than a request gives: a batch could not tell whose rows are whose.
  if (m.onConflict) return { sql: `${sql}${onConflictSql(m.onConflict, w)} RETURNING *` };
  sql += ' RETURNING *';
  return { sql, ...(read.rows ? { rows: { head, ...read.rows } } : {}) };
}

/** The objects as VALUES, a placeholder per value: a column missing from one object gets its DEFAULT, as in Hasura, not NULL. */
function valuesSql(rows: Assignment[][], columns: Column[], w: SqlWriter): string {
  const values = rows.map(
    (row) =>
      `(${columns
        .map((c) => {
          const a = row.find((x) => x.column === c);
          return a ? w.bind(a.value) : 'DEFAULT';
        })
        .join(', ')})`,
  );
  return `VALUES ${values.join(', ')}`;
}

/**
 * One object (`insert_T_one`, or a list of one), with a batch's reading of it: one row a request. An
 * object that leaves a column out needs VALUES' DEFAULT, which a SELECT cannot hold: it is not batched.
 */
function oneRowSql(
  row: Assignment[],
  columns: Column[],
  w: SqlWriter,
): { sql: string; rows?: Omit<InsertRows, 'head'> } {
  const values = columns.map((c) => row.find((a) => a.column === c));
  if (values.some((a) => a === undefined)) return { sql: valuesSql([row], columns, w) };
  const select = values.map((a) => w.bind(a!.value)).join(', ');
  return { sql: `VALUES (${select})`, rows: { select, count: '1' } };
}

/**
 * Each object's values in `columns`' order, when every object of two or more gives every column with
 * the same type: they can then be bound as one placeholder (rowsSql). Undefined otherwise.
 */
function packedRows(rows: Assignment[][], columns: Column[]): ValueRef[][] | undefined {
  if (rows.length < 2) return undefined;
  const packed: ValueRef[][] = [];
  for (const row of rows) {
    if (row.length !== columns.length) return undefined;
    const refs = columns.map((c) => row.find((a) => a.column === c)?.value);
    const first = packed[0];
    const differs = (r: ValueRef | undefined, i: number) =>
      r === undefined || (first && (r.sqlType !== first[i].sqlType || r.array !== first[i].array));
    if (refs.some(differs)) return undefined;
    packed.push(refs as ValueRef[]);
  }
  return packed;
}

/**
 * The objects as one placeholder, read in their order: its text a JSON array of the rows' arrays of
 * texts, each text cast as its own placeholder would have been. Ten objects of three columns were 30
 * placeholders to write and bind, and PostgreSQL prepared a statement for each count of objects.
 */
function rowsSql(rows: ValueRef[][], w: SqlWriter): { sql: string; rows?: Omit<InsertRows, 'head'> } {
  // A value every object shares (a preset from the session, a literal) is bound once, as itself.
  const key = (ref: ValueRef) => JSON.stringify(ref.source);
  const shared = rows[0].map((ref, i) => rows.every((row) => key(row[i]) === key(ref)));
  const varying = rows.map((row) => row.filter((_, i) => !shared[i]));
  if (!shared.includes(false))
    return { sql: `SELECT ${rows[0].map((ref) => w.bind(ref)).join(', ')} FROM generate_series(1, ${rows.length})` };
  const whole = wholeList(varying);
  if (whole) {
    const read = recordsetSql(rows[0], shared, whole, w);
    return { sql: `SELECT ${read.select} FROM ${read.from} ORDER BY ${read.order}`, rows: read };
  }
  let at = 0;
  const each = rows[0].map((ref, i) => (shared[i] ? w.bind(ref) : castValue(`("_r"."v"->>${at++})`, ref)));
  return {
    sql: `SELECT ${each.join(', ')} FROM json_array_elements(${w.bindRows(varying)}::text::json) WITH ORDINALITY AS "_r"("v", "n") ORDER BY "_r"."n"`,
  };
}

/**
 * The list variable whole, each object's keys read as text by one json_to_recordset and cast as its
 * own placeholder's text would have been. (`->>` per key parsed each object's JSON once per column:
 * 16 µs of PostgreSQL's ~600 for ten objects of three keys, measured one statement at a time.) The
 * columns are renamed `c0`, `c1`, ... so that no key can take the ordinality's name.
 */
function recordsetSql(
  first: ValueRef[],
  shared: boolean[],
  whole: { name: string; keys: string[] },
  w: SqlWriter,
): Omit<InsertRows, 'head'> {
  let at = 0;
  const read = first.map((ref, i) => (shared[i] ? w.bind(ref) : castValue(`"_r"."c${at++}"`, ref)));
  const keys = whole.keys.map((k) => `${ident(k)} text`).join(', ');
  const names = whole.keys.map((_, i) => `"c${i}"`).join(', ');
  const list = `${w.bindList(whole.name)}::text::json`;
  return {
    select: read.join(', '),
    from: `ROWS FROM (json_to_recordset(${list}) AS (${keys})) WITH ORDINALITY AS "_r"(${names}, "n")`,
    order: '"_r"."n"',
    count: `json_array_length(${list})`,
  };
}

/**
 * The list variable whose items are these rows, and the key each value is read at, when the objects
 * are that variable (`objects: $objects`) and each value is its item's key as written: its JSON text
 * then holds every value as the row's own placeholder would have. Not for arrays (written as array
 * literals) nor json and jsonb (written as JSON text: a string would lose its quotes).
 */
function wholeList(rows: ValueRef[][]): { name: string; keys: string[] } | undefined {
  const first = rows[0].map((ref) => ref.source);
  if (first[0].from !== 'variable') return undefined;
  const name = first[0].name;
  const keys: string[] = [];
  for (const s of first) {
    if (s.from !== 'variable' || s.name !== name || s.path.length !== 2 || typeof s.path[1] !== 'string')
      return undefined;
    keys.push(s.path[1]);
  }
  // packedRows gave every row the first's types.
  if (rows[0].some((ref) => ref.array || ref.sqlType === 'json' || ref.sqlType === 'jsonb')) return undefined;
  const isItem = (ref: ValueRef, row: number, col: number) => {
    const s = ref.source;
    return (
      s.from === 'variable' && s.name === name && s.path.length === 2 && s.path[0] === row && s.path[1] === keys[col]
    );
  };
  return rows.every((row, r) => row.every((ref, c) => isItem(ref, r, c))) ? { name, keys } : undefined;
}

/** A jsonb operator's new value, from the old one (`old`) and the bound value (`v`), as Hasura writes it. */
const JSONB_SQL: Record<JsonbOperator, (old: string, v: string) => string> = {
  _append: (old, v) => `${old} || ${v}`,
  _prepend: (old, v) => `${v} || ${old}`,
  _delete_key: (old, v) => `${old} - ${v}`,
  _delete_elem: (old, v) => `${old} - ${v}`,
  _delete_at_path: (old, v) => `${old} #- ${v}`,
};

function updateSql(m: UpdateField, w: SqlWriter): string {
  const old = (c: Column) => `"_u".${ident(c.name)}`;
  const sets = [
    ...m.set.map((a) => `${ident(a.column.name)} = ${w.bind(a.value)}`),
    ...m.inc.map((a) => `${ident(a.column.name)} = ${old(a.column)} + ${w.bind(a.value)}`),
    ...m.jsonb.map((a) => `${ident(a.column.name)} = ${JSONB_SQL[a.op](old(a.column), w.bind(a.value))}`),
  ];
  return `UPDATE ${tableName(m.table)} AS "_u" SET ${sets.join(', ')} WHERE ${boolExpSql(m.where, '"_u"', w)} RETURNING "_u".*`;
}

function deleteSql(m: Extract<MutationField, { kind: 'delete' }>, w: SqlWriter): string {
  return `DELETE FROM ${tableName(m.table)} AS "_d" WHERE ${boolExpSql(m.where, '"_d"', w)} RETURNING "_d".*`;
}

/**
 * A SELECT of one row over the changed rows (`_m`): `out`, the field's JSON as text, and `ok`, whether
 * every changed row passes `check`. For `_one` and `_by_pk` the output is the row itself. Otherwise
 * every field of `affected_rows` and `returning` and the check come from one scan of the rows. (A
 * subquery per field scanned them once each, 10% more of PostgreSQL's CPU for an insert of ten rows
 * than the hand-written statement's one scan; the check's scan of its own was 4% more.)
 */
function answerSql(
  out: MutationOutput,
  one: boolean,
  check: BoolExp | undefined,
  w: SqlWriter,
  source = CHANGED,
): string {
  if (one)
    return `SELECT (${outputSql(out, true, w, undefined, source)})::text AS "out", ${checkSql(check, w, source)} AS "ok"`;
  const a = w.alias();
  const { json, joins } = manyRowsJson(out, a, w);
  const ok = allHold(check ? boolExpSql(check, a, w) : 'true');
  // GROUP BY (): one row, also when no field aggregates.
  return `SELECT (${json})::text AS "out", ${ok} AS "ok" FROM ${source} AS ${a}${joins} GROUP BY ()`;
}

/** The output over the changed rows (`_m`, or `source`), as an expression: see answerSql. */
function outputSql(out: MutationOutput, one: boolean, w: SqlWriter, affected = 'count(*)', source = CHANGED): string {
  const a = w.alias();
  if (one) {
    const row = joinedRowJson(out.fields as Field[], a, w);
    return `(SELECT ${row.json} FROM ${source} AS ${a}${row.joins} WHERE ${boolExpSql(out.visible, a, w)} LIMIT 1)`;
  }
  const { json, joins } = manyRowsJson(out, a, w, affected);
  // GROUP BY (): one row, also when no field aggregates (`affected_rows` of a nested insert is a subquery).
  return `(SELECT ${json} FROM ${source} AS ${a}${joins} GROUP BY ())`;
}

/** `affected_rows` and `returning` over the changed rows named `a`, and the joins `returning` reads. */
function manyRowsJson(
  out: MutationOutput,
  a: string,
  w: SqlWriter,
  affected = 'count(*)',
): { json: string; joins: string } {
  // affected_rows counts every changed row; returning lists those the role may select.
  const visible = boolExpSql(out.visible, a, w);
  const seen = visible === 'true' ? '' : ` FILTER (WHERE ${visible})`;
  const joins: string[] = [];
  const json = objectText(
    out.fields.map((f): [string, JsonValue] => {
      if (f.kind === 'typename') return [f.alias, nameText(f.name)];
      if (f.kind === 'affected_rows') return [f.alias, { text: `(${affected})::text` }];
      if (f.kind === 'returning') {
        const row = joinedRowJson(f.fields, a, w);
        joins.push(row.joins);
        return [f.alias, { text: arrayText(row.json, '', seen) }];
      }
      return [f.alias, { text: `'null'` }];
    }),
  );
  return { json, joins: joins.join('') };
}

/** The aggregate of whether `holds` is true of every row scanned; a condition that always holds is no aggregate. */
const allHold = (holds: string): string => (holds === 'true' ? 'true' : `coalesce(bool_and(${holds}), true)`);

/** Whether every changed row passes the permission check; a check that always holds reads no row. */
function checkSql(check: BoolExp | undefined, w: SqlWriter, source = CHANGED): string {
  if (!check) return 'true';
  const c = w.alias();
  const ok = allHold(boolExpSql(check, c, w));
  return ok === 'true' ? 'true' : `(SELECT ${ok} FROM ${source} AS ${c})`;
}

/**
 * One mutation field as one statement: the change in a CTE, then its output and the permission
 * check computed over the changed rows. The caller rolls the transaction back when `ok` is false.
 */
export function mutationStatement(
  m: Exclude<MutationField, { kind: 'updateMany' }>,
  output: JsonOutput = {},
): MutationStatement {
  if (m.kind === 'insert' && m.nested) return nestedInsertStatement(m, output);
  const w = new SqlWriter(0, output);
  const insert = m.kind === 'insert' ? insertSql(m, w) : undefined;
  const change = m.kind === 'update' ? updateSql(m, w) : m.kind === 'delete' ? deleteSql(m, w) : insert!.sql;
  const check = m.kind === 'delete' ? undefined : m.check;
  if (!readsRelationships(m.output)) {
    const answer = answerSql(m.output, m.one, check, w);
    const bytesParam = w.params.length + 1;
    // The batch's answer reads the same placeholders (the writer gives an identical slot its number).
    const answerOver = (source: string) => answerSql(m.output, m.one, check, w, source);
    const batch = insert?.rows && batchedInsertSql(insert.rows, answerOver, bytesParam, batchTypes(w));
    return {
      alias: m.alias,
      text: `WITH "_m" AS (${change}) ${answer}`,
      writer: w,
      lone: { text: loneSql(change, answer, bytesParam), bytesParam, ...(batch ? { batch } : {}) },
    };
  }
  // As Hasura does: change and fetch the rows, then build the output in a statement that sees the change.
  const r = w.alias();
  const text = `WITH "_m" AS (${change}) SELECT (SELECT coalesce(json_agg(${r}), '[]'::json) FROM "_m" AS ${r})::text AS "rows", ${checkSql(check, w)} AS "ok"`;
  const ow = new SqlWriter(1, output);
  const out = outputSql(m.output, m.one, ow);
  const outputText = `WITH "_m" AS (SELECT * FROM json_populate_recordset(NULL::${tableName(m.table)}, $1::text::json)) SELECT (${out})::text AS "out"`;
  return { alias: m.alias, text, writer: w, output: { text: outputText, writer: ow, rowsParam: 1 } };
}

/**
 * A nested insert: every row at every level written by one statement of data-modifying CTEs (see
 * NestedInsertWriter), which returns the rows; then a second statement, which sees them, checks each
 * table's insert permission over its rows and builds the output (`affected_rows` counts every level).
 * The caller rolls back when `empty` is set (a row whose key others take wrote none) or `ok` is false
 * (the refusal statement then names the rows refused).
 */
function nestedInsertStatement(m: Extract<MutationField, { kind: 'insert' }>, output: JsonOutput): MutationStatement {
  const w = new SqlWriter(0, output);
  const n = new NestedInsertWriter(w);
  const top = n.write(m);
  const text = `WITH ${n.ctes.join(', ')} SELECT (${n.rowsJson(top)})::text AS "rows", true AS "ok", ${n.emptyJson()} AS "empty"`;
  const ow = new SqlWriter(1, output);
  const rows = '$1::text::json';
  const out = outputSql(m.output, m.one, ow, NestedInsertWriter.affectedSql(rows));
  const outputText = `WITH "_m" AS (SELECT * FROM json_populate_recordset(NULL::${tableName(m.table)}, ${rows}->'top')) SELECT (${out})::text AS "out", ${n.checksSql(rows, ow)} AS "ok"`;
  const rw = new SqlWriter(1, output);
  const refusal = { text: `SELECT ${n.refusedSql(rows, rw)} AS "refused"`, writer: rw, rowsParam: 1 };
  return { alias: m.alias, text, writer: w, output: { text: outputText, writer: ow, rowsParam: 1, refusal } };
}
