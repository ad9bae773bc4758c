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

/** The rows written into one table: its CTEs (with their rows' path, for errors) and the role's check. */
export interface NestedGroup {
  table: Table;
  check: BoolExp;
  ctes: { name: string; path: string }[];
}

/**
 * Whether `g`'s insert check holds for the rows of a FROM list, which `from` writes around `record(json)`,
 * the rows of a JSON array as rows of the table.
 */
function holds(g: NestedGroup, w: SqlWriter, from: (record: (json: string) => string) => string): string {
  const a = w.alias();
  const record = (json: string) => `json_populate_recordset(NULL::${tableName(g.table)}, ${json}) AS ${a}`;
  return `(SELECT coalesce(bool_and(${boolExpSql(g.check, a, w)}), true) FROM ${from(record)})`;
}

/** The path of the rows of one CTE: a row's own, or the list they are items of. */
function pathOf(rows: NestedRows[]): string {
  return rows.length === 1 ? rows[0].path : rows[0].path.replace(/\[\d+\]$/, '');
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
 * keys from: a related row that the row references before it, rows that reference the row (an array
 * relationship, or an object relationship from the referenced side) after it. A row's linked values are selected from the linked row's CTE, so the keys
 * the database generates flow down without a round trip.
 */
export class NestedInsertWriter {
  readonly ctes: string[] = [];
  readonly groups: NestedGroup[] = [];
  /**
   * CTEs that must hold a row: a related row the parent takes its key from, and a parent whose children
   * take its key (an upsert doing nothing leaves none).
   */
  readonly required: { cte: string; path: string; message: string }[] = [];
  constructor(private w: SqlWriter) {}

  /** Writes the mutation's rows; returns the CTE names of its top-level rows. */
  write(m: Extract<MutationField, { kind: 'insert' }>): string[] {
    return this.rows(m.table, m.rows, m.nested!, m.onConflict, m.check, []);
  }

  private group(table: Table, check: BoolExp, name: string, path: string): void {
    let g = this.groups.find((x) => x.table === table);
    if (!g) this.groups.push((g = { table, check, ctes: [] }));
    g.ctes.push({ name, path });
  }

  /**
   * Rows of one level under the same links: a row with nested inserts gets a CTE of its own (its
   * children take its key); the others are written together, one CTE per set of columns given.
   */
  private rows(
    table: Table,
    rows: Assignment[][],
    nested: NestedRows[],
    onConflict: OnConflict | undefined,
    check: BoolExp,
    links: Link[],
  ): string[] {
    const names: string[] = [];
    const leaves = new Map<string, { rows: Assignment[][]; nested: NestedRows[] }>();
    rows.forEach((row, i) => {
      if (nested[i].before.length + nested[i].after.length) {
        names.push(this.row(table, row, nested[i], onConflict, check, links));
        return;
      }
      const key = row.map((a) => a.column.name).join(',');
      const leaf = leaves.get(key) ?? { rows: [], nested: [] };
      leaf.rows.push(row);
      leaf.nested.push(nested[i]);
      leaves.set(key, leaf);
    });
    for (const leaf of leaves.values())
      names.push(this.cte(table, leaf.rows, links, onConflict, check, pathOf(leaf.nested)));
    return names;
  }

  private cte(
    table: Table,
    rows: Assignment[][],
    links: Link[],
    onConflict: OnConflict | undefined,
    check: BoolExp,
    path: string,
  ): string {
    const name = `"_n${this.ctes.length}"`;
    this.ctes.push(`${name} AS (${this.insert(table, rows, links, onConflict)})`);
    this.group(table, check, name, path);
    return name;
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
      const [cte] = this.rows(n.rel.target, n.rows, n.nested, n.onConflict, n.check, []);
      const message = `cannot proceed to insert object relation "${n.rel.name}" since insert to table "${n.rel.target.name}" affects zero rows`;
      this.required.push({ cte, path: n.path, message });
      links.push({ cte, pairs: n.rel.mapping });
    }
    const name = this.cte(table, [row], links, onConflict, check, nested.path);
    if (nested.after.length) {
      // An upsert that wrote nothing has no key to give its children; Hasura refuses rather than skip them.
      const message = `cannot proceed to insert array relations since insert to table "${table.name}" affects zero rows`;
      this.required.push({ cte: name, path: nested.path, message });
    }
    for (const n of nested.after) {
      const back: Link = { cte: name, pairs: n.rel.mapping.map(([s, t]): [Column, Column] => [t, s]) };
      this.rows(n.rel.target, n.rows, n.nested, n.onConflict, n.check, [back]);
    }
    return name;
  }

  /** One INSERT of rows that give the same columns, each with the linked rows' keys. */
  private insert(table: Table, rows: Assignment[][], links: Link[], onConflict: OnConflict | undefined): string {
    const linked = links.flatMap((l, i) => l.pairs.map(([c, from]) => [c, `"_l${i}".${ident(from.name)}`] as const));
    const own = rows[0].map((a) => a.column).filter((c) => !linked.some(([l]) => l === c));
    const tuples = rows.map((r) => `(${own.map((c) => this.w.bind(r.find((a) => a.column === c)!.value)).join(', ')})`);
    const columns = [...own, ...linked.map(([c]) => c)];
    const target = `INSERT INTO ${tableName(table)} AS "_i"`;
    let sql: string;
    if (!columns.length)
      sql = `${target} (${ident(table.columns[0].name)}) VALUES ${rows.map(() => '(DEFAULT)').join(', ')}`;
    else if (!links.length)
      sql = `${target} (${columns.map((c) => ident(c.name)).join(', ')}) VALUES ${tuples.join(', ')}`;
    else {
      const values = own.length ? tuples : rows.map(() => '(NULL)');
      const names = own.length ? own.map((_, i) => `"c${i}"`) : ['"c"'];
      const select = [...own.map((_, i) => `"_v"."c${i}"`), ...linked.map(([, v]) => v)];
      sql =
        `${target} (${columns.map((c) => ident(c.name)).join(', ')}) SELECT ${select.join(', ')} ` +
        `FROM (VALUES ${values.join(', ')}) AS "_v"(${names.join(', ')}), ${links.map((l, i) => `${l.cte} AS "_l${i}"`).join(', ')}`;
    }
    if (onConflict) sql += onConflictSql(onConflict, this.w);
    return `${sql} RETURNING *`;
  }

  /**
   * `rows` for the second statement: the top-level rows, and every table's rows for its check, a list of
   * rows per CTE (so that a refusal can name the rows' path).
   */
  rowsJson(top: string[]): string {
    const agg = (ctes: string[]) =>
      `(SELECT coalesce(json_agg("_r"), '[]'::json) FROM (${ctes.map((c) => `SELECT * FROM ${c}`).join(' UNION ALL ')}) AS "_r")`;
    const parts = (g: NestedGroup) => `json_build_array(${g.ctes.map((c) => agg([c.name])).join(', ')})`;
    return `json_build_object('top', ${agg(top)}, 'groups', json_build_array(${this.groups.map(parts).join(', ')}))`;
  }

  /** NULL, or `[path, message]` of the first required insert that wrote no row. */
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
    const tables = this.groups.map((g, i) =>
      holds(g, w, (record) => `json_array_elements(${rows}->'groups'->${i}) AS "_p"("v"), ${record('"_p"."v"')}`),
    );
    return tables.join(' AND ');
  }

  /**
   * Run only after a refusal, since planning it costs a subquery per CTE: the path of the first rows
   * refused, CTE by CTE.
   */
  refusedSql(rows: string, w: SqlWriter): string {
    const each = this.groups.flatMap((g, i) =>
      g.ctes.map(
        (c, j) =>
          `WHEN NOT ${holds(g, w, (record) => record(`${rows}->'groups'->${i}->${j}`))} THEN ${stringLiteral(c.path)}`,
      ),
    );
    return `(CASE ${each.join(' ')} END)::text`;
  }

  /** In the second statement: every row written, at every level. */
  static affectedSql(rows: string): string {
    return `(SELECT coalesce(sum(json_array_length("_c"."v")), 0)::int FROM json_array_elements(${rows}->'groups') AS "_g"("v"), json_array_elements("_g"."v") AS "_c"("v"))`;
  }
}
