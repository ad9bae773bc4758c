import type { Column, Table } from '../model/model-types';
import type { Assignment, BoolExp, MutationField, NestedRows, OnConflict } from '../plan/ir';
import { boolExpSql } from './bool-exp';
import { ident, stringLiteral, tableName, type SqlWriter } from './writer';

/** A row's values taken from a row written before it in the same statement (a CTE of one row). */
interface Link {
  cte: string;
  /** (column of this row, column of the linked row) */
  pairs: [Column, Column][];
}

/** The rows written into one table, by CTE name, and that table's insert check for the role. */
export interface NestedGroup {
  table: Table;
  check: BoolExp;
  ctes: string[];
}

/** The ON CONFLICT clause of an insert whose target is aliased `_i`. */
export function onConflictSql(oc: OnConflict, w: SqlWriter): string {
  const sql = ` ON CONFLICT ON CONSTRAINT ${ident(oc.constraint)}`;
  return oc.updateColumns.length
    ? `${sql} DO UPDATE SET ${oc.updateColumns.map((c) => `${ident(c.name)} = EXCLUDED.${ident(c.name)}`).join(', ')} WHERE ${boolExpSql(oc.where, '"_i"', w)}`
    : `${sql} DO NOTHING`;
}

/**
 * A nested insert as data-modifying CTEs of one statement, one per row, each after the rows it takes
 * keys from: an object relationship's row before the row that references it, an array relationship's
 * rows after their parent. A row's linked values are selected from the linked row's CTE, so the keys
 * the database generates flow down without a round trip.
 */
export class NestedInsertWriter {
  readonly ctes: string[] = [];
  readonly groups: NestedGroup[] = [];
  /** Object relationships' CTEs, which must hold a row (an upsert doing nothing leaves none). */
  readonly required: { cte: string; path: string; message: string }[] = [];
  constructor(private w: SqlWriter) {}

  /** Writes the mutation's rows; returns the CTE names of its top-level rows. */
  write(m: Extract<MutationField, { kind: 'insert' }>): string[] {
    return m.rows.map((row, i) => this.row(m.table, row, m.nested![i], m.onConflict, m.check, []));
  }

  private group(table: Table, check: BoolExp, cte: string): void {
    let g = this.groups.find((x) => x.table === table);
    if (!g) this.groups.push((g = { table, check, ctes: [] }));
    g.ctes.push(cte);
  }

  private row(
    table: Table,
    row: Assignment[],
    nested: NestedRows,
    onConflict: OnConflict | undefined,
    check: BoolExp,
    links: Link[],
  ): string {
    links = [...links];
    for (const n of nested.before) {
      const cte = this.row(n.rel.target, n.rows[0], n.nested[0], n.onConflict, n.check, []);
      const message = `cannot proceed to insert object relation "${n.rel.name}" since insert to table "${n.rel.target.name}" affects zero rows`;
      this.required.push({ cte, path: n.path, message });
      links.push({ cte, pairs: n.rel.mapping });
    }
    const name = `"_n${this.ctes.length}"`;
    this.ctes.push(`${name} AS (${this.insert(table, row, links, onConflict)})`);
    this.group(table, check, name);
    for (const n of nested.after) {
      const back: Link = { cte: name, pairs: n.rel.mapping.map(([s, t]): [Column, Column] => [t, s]) };
      n.rows.forEach((r, i) => this.row(n.rel.target, r, n.nested[i], n.onConflict, n.check, [back]));
    }
    return name;
  }

  private insert(table: Table, row: Assignment[], links: Link[], onConflict: OnConflict | undefined): string {
    const linked = links.flatMap((l, i) => l.pairs.map(([c, from]) => [c, `"_l${i}".${ident(from.name)}`] as const));
    const own = row.filter((a) => !linked.some(([c]) => c === a.column));
    const columns = [...own.map((a) => a.column), ...linked.map(([c]) => c)];
    const values = [...own.map((a) => this.w.bind(a.value)), ...linked.map(([, v]) => v)];
    const target = `INSERT INTO ${tableName(table)} AS "_i"`;
    let sql = !columns.length
      ? `${target} (${ident(table.columns[0].name)}) VALUES (DEFAULT)`
      : `${target} (${columns.map((c) => ident(c.name)).join(', ')}) ` +
        (links.length
          ? `SELECT ${values.join(', ')} FROM ${links.map((l, i) => `${l.cte} AS "_l${i}"`).join(', ')}`
          : `VALUES (${values.join(', ')})`);
    if (onConflict) sql += onConflictSql(onConflict, this.w);
    return `${sql} RETURNING *`;
  }

  /** `rows` for the second statement: the top-level rows, and every table's rows for its check. */
  rowsJson(top: string[]): string {
    const agg = (ctes: string[]) =>
      `(SELECT coalesce(json_agg("_r"), '[]'::json) FROM (${ctes.map((c) => `SELECT * FROM ${c}`).join(' UNION ALL ')}) AS "_r")`;
    return `json_build_object('top', ${agg(top)}, 'groups', json_build_array(${this.groups.map((g) => agg(g.ctes)).join(', ')}))`;
  }

  /** NULL, or `[path, message]` of the first object relationship whose insert wrote no row. */
  emptyJson(): string {
    if (!this.required.length) return 'NULL::text';
    const cases = this.required.map(
      (r) =>
        `WHEN NOT EXISTS (SELECT 1 FROM ${r.cte}) THEN json_build_array(${stringLiteral(r.path)}::text, ${stringLiteral(r.message)}::text)::text`,
    );
    return `(CASE ${cases.join(' ')} END)`;
  }

  /**
   * In the second statement, which sees every row written: each table's insert check over its rows
   * (`rows` at `$n`), so a check through a relationship sees the related rows written with it.
   */
  checksSql(rows: string, w: SqlWriter): string {
    const checks = this.groups.map((g, i) => {
      const a = w.alias();
      return `(SELECT coalesce(bool_and(${boolExpSql(g.check, a, w)}), true) FROM json_populate_recordset(NULL::${tableName(g.table)}, ${rows}->'groups'->${i}) AS ${a})`;
    });
    return checks.join(' AND ');
  }

  /** In the second statement: every row written, at every level. */
  static affectedSql(rows: string): string {
    return `(SELECT coalesce(sum(json_array_length("_g"."v")), 0)::int FROM json_array_elements(${rows}->'groups') AS "_g"("v"))`;
  }
}
