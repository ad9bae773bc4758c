import type { Param, QueryOptions, Queryable, Row } from './database';

/**
 * The one way SQL text is put together with values outside the GraphQL compiler (which binds its
 * own value sources through compile/sql/writer.ts). A tagged template keeps text and values apart
 * until the end: values become numbered placeholders, fragments nest, identifiers are quoted.
 *
 *   const where = sql`tenant_id = ${tenant}::uuid`;
 *   await query(db, sql`SELECT id FROM cloud_accounts WHERE ${where} LIMIT ${limit}`);
 *
 * Every placeholder should carry a cast (`${v}::uuid`): values travel as text, so both database
 * adapters see the same statement.
 */
export class Sql {
  /** @internal use `sql`, `sql.ident`, `sql.join`. */
  constructor(
    readonly strings: readonly string[],
    readonly values: readonly SqlValue[],
  ) {}
}

/** What may stand in a `${...}` of `sql`: a value to bind, or a fragment to inline. */
export type SqlValue = Sql | string | number | bigint | boolean | null | undefined | readonly unknown[];

/** A statement ready for `Queryable.query`. */
export interface Statement {
  text: string;
  params: Param[];
}

export function sql(strings: TemplateStringsArray | readonly string[], ...values: SqlValue[]): Sql {
  return new Sql([...strings], values);
}

/** A quoted identifier (a column or table name chosen by code, never by a caller). */
sql.ident = (name: string): Sql => new Sql([ident(name)], []);

/** Fragments joined by a separator (`, `, ` AND `); no fragments: an empty fragment. */
sql.join = (parts: readonly Sql[], separator: string): Sql => {
  if (parts.length === 0) return EMPTY;
  const strings = ['', ...parts.slice(1).map(() => separator), ''];
  return new Sql(strings, parts);
};

/** Conditions joined by AND, as `WHERE ...`; none: nothing. */
sql.where = (conditions: readonly Sql[]): Sql =>
  conditions.length === 0 ? EMPTY : sql`WHERE ${sql.join(conditions, ' AND ')}`;

/** A fixed piece of SQL text written in code (a keyword, a column list); never a caller's value. */
sql.text = (text: string): Sql => new Sql([text], []);

const EMPTY = new Sql([''], []);

/** Numbers the placeholders of a fragment: `$1`, `$2`, ... in order of appearance. */
export function render(fragment: Sql): Statement {
  return renderWith(fragment, (value) => (value instanceof Sql ? INSIDE : paramText(value)));
}

/** What `renderWith`'s `place` answers for a fragment whose own text and values are to be written in place. */
export const INSIDE: unique symbol = Symbol('inside');

/**
 * A fragment's text with `$1`, `$2`, ... as `render` numbers them, where `place` says what each value
 * stands for: its parameter (one placeholder), or INSIDE for a fragment written in place. For callers
 * that note more than the value of a placeholder (actions/analytics/slots.ts).
 */
export function renderWith<P>(
  fragment: Sql,
  place: (value: SqlValue) => P | typeof INSIDE,
): { text: string; params: P[] } {
  const params: P[] = [];
  const write = (f: Sql): string => {
    let out = f.strings[0];
    f.values.forEach((value, i) => {
      const placed = place(value);
      if (placed === INSIDE) out += write(value as Sql);
      else out += `$${params.push(placed)}`;
      out += f.strings[i + 1];
    });
    return out;
  };
  return { text: write(fragment), params };
}

/** Runs a fragment on a database or transaction. */
export function query(db: Queryable, fragment: Sql, options?: QueryOptions): Promise<Row[]> {
  const s = render(fragment);
  return db.query(s.text, s.params, options);
}

/**
 * A select-list column (always null) that makes PostgreSQL plan a prepared statement for each run's
 * values and never run its generic plan: for a statement whose best plan depends on its values, kept
 * prepared all the same so that its parsing and analysis are not paid on every run.
 *
 * PostgreSQL uses a prepared statement's generic plan once its estimated cost is below the average of
 * the custom plans it made in the first five runs; and when it builds the generic plan and finds it
 * costlier, it makes a custom plan instead of running it (plancache.c, GetCachedPlan). With its
 * values known, a custom plan folds `CASE WHEN false` away before planning the subquery; a generic
 * plan keeps it, and with it the cost of counting `table` joined to itself (rows squared), which no
 * custom plan of a statement over that table reaches once it holds a few hundred rows. The subquery
 * never runs: its one value is false.
 */
export function customPlansOnly(table: string): Sql {
  const t = sql.ident(table);
  return sql`CASE WHEN ${false}::boolean THEN (SELECT count(*) FROM ${t} a, ${t} b) END AS custom_plans_only`;
}

export const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;
export const stringLiteral = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** A scalar as the text PostgreSQL parses for its placeholder's cast. */
export function scalarText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return JSON.stringify(v);
}

/** A PostgreSQL array literal: `{"a","b\"c",NULL}`. */
export function arrayLiteral(items: readonly unknown[]): string {
  const item = (i: unknown) =>
    i === null || i === undefined ? 'NULL' : `"${scalarText(i).replace(/(["\\])/g, '\\$1')}"`;
  return `{${items.map(item).join(',')}}`;
}

/** A bound value as text: arrays as array literals (`${ids}::uuid[]`), objects as JSON. */
export function paramText(value: Exclude<SqlValue, Sql>): Param {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return arrayLiteral(value);
  return scalarText(value);
}
