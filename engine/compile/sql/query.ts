/*
 * engine/compile/sql: the IR to SQL text, in one place (select, bool-exp, mutation, native queries);
 * values are placeholders bound later, so the text depends on the document and role only. Imports
 * compile/plan, compile/model and engine/core.
 */
import type { RootField } from '../plan/ir';
import { aggregateJson, countableRows, countedListParts, listJson, singleRowJson } from './select';
import { SqlWriter, type JsonOutput } from './writer';

type ReadField = Extract<RootField, { kind: 'select' | 'selectByPk' | 'aggregate' }>;

/** One field's output: its JSON text as `f<i>`, and for a list its row count as `r<i>`. */
interface FieldOutput {
  /** The field's JSON as text. */
  json: string;
  /** Its row count, when PostgreSQL counts them. */
  rows?: string;
  /** A subquery of one row that both read, when they read one. */
  from?: string;
}

/**
 * A read field's output. A list is counted by PostgreSQL as it builds it, with the rows of the lists
 * under it (select.ts countedListParts), so that the engine need not read its text to count its rows;
 * other fields (by primary key, aggregates, lists under aggregates' nodes or under objects found by a
 * subquery) are counted from their text (request-budget.ts countRows).
 */
function fieldOutput(f: ReadField, i: number, w: SqlWriter): FieldOutput {
  const alias = w.alias();
  if (f.kind === 'select' && countableRows(f.fields)) {
    const list = countedListParts(f.rows, f.fields, alias, w);
    const from = `(SELECT (${list.json})::text AS f, ${list.rows} AS n FROM ${list.from}) AS _l${i}`;
    return { json: `_l${i}.f`, rows: `_l${i}.n`, from };
  }
  const json =
    f.kind === 'select'
      ? listJson(f.rows, f.fields, alias, w)
      : f.kind === 'aggregate'
        ? aggregateJson(f.rows, f.fields, alias, w)
        : singleRowJson(f.table, f.where, f.fields, alias, w);
  return { json: `(${json})::text` };
}

/**
 * All table fields of a query as ONE statement: one output column per field (`f0`, `f1`, ...), each
 * the field's JSON as text, which the engine writes into the response without parsing, and `r<i>`
 * beside each field PostgreSQL counts the rows of (`rowsColumns`). The last placeholder (`bytesParam`)
 * is the number of bytes the answer may have: PostgreSQL measures the text it built (`__bytes`) and
 * sends NULL in place of a larger answer, so that it never reaches the engine.
 */
export function queryStatement(
  fields: ReadField[],
  output: JsonOutput = {},
): { text: string; writer: SqlWriter; bytesParam: number; rowsColumns: (string | undefined)[] } {
  const w = new SqlWriter(0, output);
  const outputs = fields.map((f, i) => fieldOutput(f, i, w));
  const columns = outputs.flatMap((o, i) => [`${o.json} AS "f${i}"`, ...(o.rows ? [`${o.rows} AS "r${i}"`] : [])]);
  const froms = outputs.flatMap((o) => (o.from ? [o.from] : []));
  const from = froms.length ? ` FROM ${froms.join(' CROSS JOIN ')}` : '';
  const bytesParam = w.params.length + 1;
  const names = fields.map((_, i) => `q."f${i}"`);
  const size = names.map((n) => `coalesce(octet_length(${n}), 4)`).join(' + ');
  const guarded = names.map((n, i) => `CASE WHEN b.n <= $${bytesParam}::bigint THEN ${n} END AS "f${i}"`);
  const rowsColumns = outputs.map((o, i) => (o.rows ? `r${i}` : undefined));
  const counted = rowsColumns.flatMap((c) => (c ? [`q."${c}"`] : []));
  // OFFSET 0 keeps PostgreSQL from pulling the subquery up into the outer SELECT: pulled up, every
  // reference to a field's column (measured, compared, returned) became a copy of the field's whole
  // statement, and each answer was built three times or more.
  const text = `SELECT ${[...guarded, ...counted].join(', ')}, b.n AS "__bytes" FROM (SELECT ${columns.join(', ')}${from} OFFSET 0) AS q, LATERAL (SELECT ${size} AS n) AS b`;
  return { text, writer: w, bytesParam, rowsColumns };
}
