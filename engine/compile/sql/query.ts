/*
 * engine/compile/sql: the IR to SQL text, in one place (select, bool-exp, mutation, native queries);
 * values are placeholders bound later, so the text depends on the document and role only. Imports
 * compile/plan, compile/model and engine/core.
 */
import type { RootField } from '../plan/ir';
import { aggregateJson, listJson, singleRowJson } from './select';
import { SqlWriter, type JsonOutput } from './writer';

type ReadField = Extract<RootField, { kind: 'select' | 'selectByPk' | 'aggregate' }>;

/**
 * All table fields of a query as ONE statement: one output column per field (`f0`, `f1`, ...), each
 * the field's JSON as text, which the engine writes into the response without parsing. The last
 * placeholder (`bytesParam`) is the number of bytes the answer may have: PostgreSQL measures the text
 * it built (`__bytes`) and sends NULL in place of a larger answer, so that it never reaches the engine.
 */
export function queryStatement(
  fields: ReadField[],
  output: JsonOutput = {},
): { text: string; writer: SqlWriter; bytesParam: number } {
  const w = new SqlWriter(0, output);
  const columns = fields.map((f, i) => {
    const alias = w.alias();
    const json =
      f.kind === 'select'
        ? listJson(f.rows, f.fields, alias, w)
        : f.kind === 'aggregate'
          ? aggregateJson(f.rows, f.fields, alias, w)
          : singleRowJson(f.table, f.where, f.fields, alias, w);
    return `(${json})::text AS "f${i}"`;
  });
  const bytesParam = w.params.length + 1;
  const names = fields.map((_, i) => `q."f${i}"`);
  const size = names.map((n) => `coalesce(octet_length(${n}), 4)`).join(' + ');
  const guarded = names.map((n, i) => `CASE WHEN b.n <= $${bytesParam}::bigint THEN ${n} END AS "f${i}"`);
  // OFFSET 0 keeps PostgreSQL from pulling the subquery up into the outer SELECT: pulled up, every
  // reference to a field's column (measured, compared, returned) became a copy of the field's whole
  // statement, and each answer was built three times or more.
  const text = `SELECT ${guarded.join(', ')}, b.n AS "__bytes" FROM (SELECT ${columns.join(', ')} OFFSET 0) AS q, LATERAL (SELECT ${size} AS n) AS b`;
  return { text, writer: w, bytesParam };
}
