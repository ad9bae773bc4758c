import { sql, type Sql } from '../api';

/**
 * What an analytic operation (`*_v2`, `*_groupings_v2`) reads: a dataset definition. The builder
 * (builder.ts) turns a definition and a caller's request (columns, group_by, column_transformations,
 * where, order_by, limit, offset) into one SQL statement; definitions hold SQL text written by us,
 * never text from a request.
 */

/**
 * The SQL of a definition: text written by us, or, for one that compares with the session's tenant
 * (a subquery of another table), a fragment over the statement's tenant value (`${tenant}`).
 */
export type DefinitionSql = string | ((tenant: Sql) => Sql);

/** A definition's SQL as a fragment of a statement whose tenant value is `tenant`. */
export function definitionSql(definition: DefinitionSql, tenant: Sql): Sql {
  return typeof definition === 'string' ? sql.text(definition) : definition(tenant);
}

/** The type of a row field, an aggregate or a transformation's result. */
export type FieldType = 'string' | 'float' | 'int' | 'boolean' | 'datetime' | 'json';

/** The type of a where field: which QueryWhere*Request it takes. */
export type WhereType = 'string' | 'float' | 'int' | 'boolean' | 'datetime';

export interface Field {
  /** SQL expression over the dataset's `from`; `json` fields are jsonb, `datetime` fields are timestamp. */
  sql: DefinitionSql;
  type: FieldType;
  /**
   * The same on every row of a statement (the tenant's own id): a grouping operation returns it with
   * any groups, without it having to be in group_by.
   */
  constant?: boolean;
  /** For `<column>::text` of a uuid column (uuidText): the bare column, for where's equality filters. */
  uuid?: string;
  /**
   * The API answers it as a String (an int or a boolean: k8s_workloads_v2's counts and flag, as the
   * reference types them): returned as its text, which is what GraphQL's String writes of such a
   * value, so that the rows' JSON is their answer as PostgreSQL wrote it (core/json-rows.ts) instead
   * of being read and written again. Filtered, grouped and sorted as its type.
   */
  text?: boolean;
}

export interface WhereField {
  sql: string;
  type: WhereType;
  /**
   * For a string where field backed by a jsonb value (labels, recommendation): `_eq`, `_like`, ...
   * compare its text, `_contains` is jsonb containment and `_has_key` tests a top-level key.
   */
  jsonb?: string;
  /**
   * For a string where field that is the text of a uuid column (`sql` is `<uuid>::text`): the bare
   * column. `_eq`, `_neq`, `_in` and `_not_in` then compare it as a uuid, which its indexes serve.
   */
  uuid?: string;
}

export interface Dataset {
  /** The operation's name, for messages. */
  name: string;
  /** The FROM clause: a table, a view, a join or a derived table, with aliases. */
  from: DefinitionSql;
  /** A condition every row of the dataset meets (SQL over `from`), e.g. a category. */
  filter?: string;
  /** The tenant column: every statement compares it with the session's tenant (a bound value of this cast). */
  tenant: { sql: string; cast: 'uuid' | 'text' };
  /** Row fields: what `columns`, `group_by`, `order_by` and transformations may name. */
  fields: Record<string, Field>;
  /**
   * Fields computed per group (`spend_amount: sum(amount)`). Present only on grouping operations:
   * a grouping operation returns one row per group, a plain one one row per source row.
   */
  aggregates?: Record<string, Field>;
  /** A plain dataset that also takes group_by: it then returns the distinct combinations of the columns. */
  groupable?: boolean;
  /** The fields `where` accepts, each with its operator family. */
  where: Record<string, WhereField>;
  /**
   * Planned with its values on every run, never from a prepared statement's generic plan: for a
   * dataset whose generic plan `npm run bench -- v2` measured much slower than its custom ones.
   */
  planEachRun?: boolean;
}

/** Where fields that are row fields of the same name (the common case), plus any others. */
export function whereOf(
  fields: Record<string, Field>,
  names: string[],
  extra: Record<string, WhereField> = {},
): Record<string, WhereField> {
  const out: Record<string, WhereField> = {};
  for (const n of names) {
    const f = fields[n];
    if (!f) throw new Error(`where field ${n} is not a row field`);
    if (f.type === 'json') throw new Error(`where field ${n} is json: declare it in extra with jsonb`);
    if (typeof f.sql !== 'string') throw new Error(`where field ${n} compares with the tenant: declare it in extra`);
    out[n] = f.uuid ? { sql: f.sql, type: f.type, uuid: f.uuid } : { sql: f.sql, type: f.type };
  }
  return { ...out, ...extra };
}

/** A string where field over a jsonb expression. */
export const jsonbWhere = (sql: string): WhereField => ({ sql: `(${sql})::text`, type: 'string', jsonb: sql });

/** A string row field that is the text of the uuid column `column` (where's equality filters compare the column). */
export const uuidText = (column: string): Field & WhereField => ({
  sql: `${column}::text`,
  type: 'string',
  uuid: column,
});
