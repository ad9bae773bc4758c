import { isTextLike, JSON_SCALARS } from './scalar-types';

/**
 * The comparison operators of boolean expressions (`where`, permission filters, aggregate
 * predicates), in one table that every stage reads: the schema builder offers an operator on the
 * columns it applies to with its operand's GraphQL type, the planner and the permission parser bind
 * the operand with its SQL type, the SQL writer writes its SQL form. Adding an operator is adding an
 * entry. The entries' order is the order of the fields of each `<scalar>_comparison_exp` type.
 */

/** The columns an operator is offered on. */
export type ColumnClass =
  /** Every column. */
  | 'any'
  /** Every column but `json`, which PostgreSQL cannot compare for equality. */
  | 'equatable'
  /** Also not a column referencing a lookup (is_enum) table: its values are names, not ranks. */
  | 'ordered'
  /** Text columns (String, citext): pattern matching. */
  | 'text'
  /** jsonb columns: containment and keys. */
  | 'jsonb'
  /** ltree columns (the ltree extension): ancestors, descendants, lquery and ltxtquery matches. */
  | 'ltree';

/**
 * The operand's type: in GraphQL, and as the SQL type its parameter is cast to.
 *   column: the column's own type; columnList: a list of it, bound as an array;
 *   columnName: the name of another column of the same table (String), written as an identifier, never bound;
 *   boolean: Boolean; string: String, bound as text; stringList: [String!], bound as text[];
 *   lquery: the lquery scalar; lqueryList: [String!], bound as lquery[]; ltxtquery: the ltxtquery scalar.
 */
export type OperandType =
  'column' | 'columnName' | 'columnList' | 'boolean' | 'string' | 'stringList' | 'lquery' | 'lqueryList' | 'ltxtquery';

/** What a column must tell to be classed and to have its operands typed. */
export interface ComparedColumn {
  scalar: string;
  sqlType: string;
  enumValues?: string[];
}

export interface ComparisonOperator {
  appliesTo: ColumnClass;
  operand: OperandType;
  /** The comparison in SQL, given the column's SQL and the operand's bound placeholder. */
  sql: (left: string, right: string) => string;
  /** A simpler form for an operand known when the plan is compiled (a literal), which indexes can serve. */
  literalSql?: (left: string, value: unknown) => string;
  description?: string;
  /** The PostgreSQL extension that brings the types the operator applies to. */
  extension?: string;
}

const infix =
  (op: string) =>
  (left: string, right: string): string =>
    `${left} ${op} ${right}`;
/** The operand is an array: `= ANY($1)` holds for some element, `<> ALL($1)` for none. */
const overArray =
  (op: string) =>
  (left: string, right: string): string =>
    `${left} ${op}(${right})`;

const equality = (sql: string): ComparisonOperator => ({ appliesTo: 'equatable', operand: 'column', sql: infix(sql) });
const order = (sql: string): ComparisonOperator => ({ appliesTo: 'ordered', operand: 'column', sql: infix(sql) });
/** Compares with another column of the row: the operand names it, and the SQL names it as an identifier. */
const columnCompare = (appliesTo: ColumnClass, sql: string, what: string): ComparisonOperator => ({
  appliesTo,
  operand: 'columnName',
  sql: infix(sql),
  description: `is the column ${what} the named column of the same row`,
});
const pattern = (sql: string): ComparisonOperator => ({ appliesTo: 'text', operand: 'string', sql: infix(sql) });

export const OPERATORS = {
  _is_null: {
    appliesTo: 'any',
    operand: 'boolean',
    sql: (left, right) => `(${left} IS NULL) = ${right}`,
    literalSql: (left, value) => (value ? `${left} IS NULL` : `${left} IS NOT NULL`),
  },
  _eq: equality('='),
  _neq: equality('<>'),
  _in: { appliesTo: 'equatable', operand: 'columnList', sql: overArray('= ANY') },
  _nin: { appliesTo: 'equatable', operand: 'columnList', sql: overArray('<> ALL') },
  _gt: order('>'),
  _gte: order('>='),
  _lt: order('<'),
  _lte: order('<='),
  _ceq: columnCompare('equatable', '=', 'equal to'),
  _cne: columnCompare('equatable', '<>', 'not equal to'),
  _cgt: columnCompare('ordered', '>', 'greater than'),
  _cgte: columnCompare('ordered', '>=', 'greater than or equal to'),
  _clt: columnCompare('ordered', '<', 'less than'),
  _clte: columnCompare('ordered', '<=', 'less than or equal to'),
  _like: pattern('LIKE'),
  _nlike: pattern('NOT LIKE'),
  _ilike: pattern('ILIKE'),
  _nilike: pattern('NOT ILIKE'),
  _similar: pattern('SIMILAR TO'),
  _nsimilar: pattern('NOT SIMILAR TO'),
  _regex: pattern('~'),
  _nregex: pattern('!~'),
  _iregex: pattern('~*'),
  _niregex: pattern('!~*'),
  _contains: {
    appliesTo: 'jsonb',
    operand: 'column',
    sql: infix('@>'),
    description: 'does the column contain the given json value at the top level',
  },
  _contained_in: {
    appliesTo: 'jsonb',
    operand: 'column',
    sql: infix('<@'),
    description: 'is the column contained in the given json value',
  },
  _has_key: {
    appliesTo: 'jsonb',
    operand: 'string',
    sql: infix('?'),
    description: 'does the string exist as a top-level key in the column',
  },
  _has_keys_any: {
    appliesTo: 'jsonb',
    operand: 'stringList',
    sql: infix('?|'),
    description: 'do any of these strings exist as top-level keys in the column',
  },
  _has_keys_all: {
    appliesTo: 'jsonb',
    operand: 'stringList',
    sql: infix('?&'),
    description: 'do all of these strings exist as top-level keys in the column',
  },
  // ltree, as Hasura's ltree_comparison_exp: `ltree @> ltree[]` holds when the array holds a descendant.
  _ancestor: {
    appliesTo: 'ltree',
    extension: 'ltree',
    operand: 'column',
    sql: infix('@>'),
    description: 'is the column an ancestor of the path (or the path itself)',
  },
  _ancestor_any: {
    appliesTo: 'ltree',
    extension: 'ltree',
    operand: 'columnList',
    sql: infix('@>'),
    description: 'is the column an ancestor of any of the paths (or one of them)',
  },
  _descendant: {
    appliesTo: 'ltree',
    extension: 'ltree',
    operand: 'column',
    sql: infix('<@'),
    description: 'is the column a descendant of the path (or the path itself)',
  },
  _descendant_any: {
    appliesTo: 'ltree',
    extension: 'ltree',
    operand: 'columnList',
    sql: infix('<@'),
    description: 'is the column a descendant of any of the paths (or one of them)',
  },
  _matches: {
    appliesTo: 'ltree',
    extension: 'ltree',
    operand: 'lquery',
    sql: infix('~'),
    description: 'does the column match the lquery pattern',
  },
  _matches_any: {
    appliesTo: 'ltree',
    extension: 'ltree',
    operand: 'lqueryList',
    sql: infix('?'),
    description: 'does the column match any of the lquery patterns',
  },
  _matches_fulltext: {
    appliesTo: 'ltree',
    extension: 'ltree',
    operand: 'ltxtquery',
    sql: infix('@'),
    description: 'does the column match the ltxtquery full-text pattern',
  },
} satisfies Record<string, ComparisonOperator>;

export type CompareOp = keyof typeof OPERATORS;

export function isCompareOp(name: string): name is CompareOp {
  return Object.hasOwn(OPERATORS, name);
}

export function operator(op: CompareOp): ComparisonOperator {
  return OPERATORS[op];
}

const IN_CLASS: Record<ColumnClass, (c: ComparedColumn) => boolean> = {
  any: () => true,
  equatable: (c) => c.scalar !== 'json',
  ordered: (c) => c.scalar !== 'json' && !c.enumValues,
  text: (c) => isTextLike(c.scalar),
  jsonb: (c) => JSON_SCALARS.has(c.scalar),
  ltree: (c) => c.scalar === 'ltree',
};

/** The operators offered on a column, in table order. */
export function operatorsFor(column: ComparedColumn): [CompareOp, ComparisonOperator][] {
  return (Object.entries(OPERATORS) as [CompareOp, ComparisonOperator][]).filter(([, o]) =>
    IN_CLASS[o.appliesTo](column),
  );
}

/** Whether the operator compares with another column (`_ceq`, ...), whose name is its operand. */
export function isColumnOperator(op: string): boolean {
  return isCompareOp(op) && OPERATORS[op].operand === 'columnName';
}

/** The SQL type an operand is bound as, compared with a column (or a value) of SQL type `sqlType`. */
export function operandSqlType(op: CompareOp, sqlType: string): { sqlType: string; array: boolean } {
  switch (OPERATORS[op].operand) {
    case 'column':
    case 'columnName':
      return { sqlType, array: false };
    case 'columnList':
      return { sqlType, array: true };
    case 'boolean':
      return { sqlType: 'boolean', array: false };
    case 'string':
      return { sqlType: 'text', array: false };
    case 'stringList':
      return { sqlType: 'text', array: true };
    case 'lquery':
      return { sqlType: 'lquery', array: false };
    case 'lqueryList':
      return { sqlType: 'lquery', array: true };
    case 'ltxtquery':
      return { sqlType: 'ltxtquery', array: false };
  }
}
