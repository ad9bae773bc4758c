import { CAST_TARGETS, isTextLike, JSON_SCALARS } from './scalar-types';

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
  | 'ltree'
  /** PostGIS geometry columns; geography columns; either (`spatial`); raster columns (postgis_raster). */
  | 'geometry'
  | 'geography'
  | 'spatial'
  | 'raster'
  /** Columns whose values may be cast in a boolean expression (model/scalar-types CAST_TARGETS). */
  | 'castable';

/**
 * The operand's type: in GraphQL, and as the SQL type its parameter is cast to.
 *   column: the column's own type; columnList: a list of it, bound as an array;
 *   columnName: the name of another column of the same table (String), written as an identifier, never bound;
 *   boolean: Boolean; string: String, bound as text; stringList: [String!], bound as text[];
 *   lquery: the lquery scalar; lqueryList: [String!], bound as lquery[]; ltxtquery: the ltxtquery scalar;
 *   object: an input object whose fields (`object` of the entry) are bound one by one;
 *   cast: `<scalar>_cast_exp`, comparisons of the column cast to another type, expanded by the planner.
 */
export type OperandType =
  | 'column'
  | 'columnName'
  | 'columnList'
  | 'boolean'
  | 'string'
  | 'stringList'
  | 'lquery'
  | 'lqueryList'
  | 'ltxtquery'
  | 'object'
  | 'cast';

/**
 * A field of an object operand. `type` is `column` (the column's own type), `geometry`, or one of the
 * GraphQL scalars Float, Int, Boolean; a field left out is bound as `default` (or NULL).
 */
export interface OperandField {
  name: string;
  type: 'column' | 'geometry' | 'Float' | 'Int' | 'Boolean';
  required: boolean;
  default?: unknown;
}

/** What a column must tell to be classed and to have its operands typed. */
export interface ComparedColumn {
  scalar: string;
  sqlType: string;
  enumValues?: string[];
}

export interface ComparisonOperator {
  appliesTo: ColumnClass;
  operand: OperandType;
  /**
   * The comparison in SQL, given the column's SQL and the operand's bound placeholder; for an object
   * operand, the placeholders of its fields (by name) instead.
   */
  sql: (left: string, right: string, fields?: Readonly<Record<string, string>>) => string;
  /** For an `object` operand: its input type's name and fields, compared with a column. */
  object?: (c: ComparedColumn) => { name: string; fields: OperandField[] };
  /** The PostgreSQL extension that brings the types the operator applies to. */
  extension?: string;
  /** A simpler form for an operand known when the plan is compiled (a literal), which indexes can serve. */
  literalSql?: (left: string, value: unknown) => string;
  description?: string;
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

/** A PostGIS predicate `fn(column, value)`, the value of the column's own type (GeoJSON, or raster hex). */
const spatial = (fn: string, appliesTo: ColumnClass, description: string): ComparisonOperator => ({
  appliesTo,
  operand: 'column',
  sql: (left, right) => `${fn}(${left}, ${right})`,
  description,
  extension: appliesTo === 'raster' ? 'postgis_raster' : 'postgis',
});
const field = (name: string, type: OperandField['type'], required = true, dflt?: unknown): OperandField => ({
  name,
  type,
  required,
  default: dflt,
});
/** `{distance, from}`; on geography also `use_spheroid` (default true), as ST_DWithin takes it. */
const dWithinInput = (c: ComparedColumn) =>
  c.scalar === 'geography'
    ? {
        name: 'st_d_within_geography_input',
        fields: [field('distance', 'Float'), field('from', 'column'), field('use_spheroid', 'Boolean', false, true)],
      }
    : { name: 'st_d_within_input', fields: [field('distance', 'Float'), field('from', 'column')] };

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
  // PostGIS, as Hasura's geometry_comparison_exp and geography_comparison_exp: `fn(column, value)`.
  _st_contains: spatial('ST_Contains', 'geometry', 'does the column contain the given geometry value'),
  _st_crosses: spatial('ST_Crosses', 'geometry', 'does the column cross the given geometry value'),
  _st_equals: spatial(
    'ST_Equals',
    'geometry',
    'is the column equal to given geometry value (directionality is ignored)',
  ),
  _st_intersects: spatial('ST_Intersects', 'spatial', 'does the column spatially intersect the given value'),
  _st_3d_intersects: spatial(
    'ST_3DIntersects',
    'geometry',
    'does the column spatially intersect the given geometry value in 3D',
  ),
  _st_overlaps: spatial('ST_Overlaps', 'geometry', 'does the column overlap the given geometry value'),
  _st_touches: spatial(
    'ST_Touches',
    'geometry',
    'does the column have at least one point in common with the given geometry value',
  ),
  _st_within: spatial('ST_Within', 'geometry', 'is the column contained in the given geometry value'),
  _st_d_within: {
    appliesTo: 'spatial',
    operand: 'object',
    object: dWithinInput,
    sql: (left, _right, f = {}) =>
      f.use_spheroid
        ? `ST_DWithin(${left}, ${f.from}, ${f.distance}, ${f.use_spheroid})`
        : `ST_DWithin(${left}, ${f.from}, ${f.distance})`,
    description: 'is the column within a given distance from the given value',
    extension: 'postgis',
  },
  _st_3d_d_within: {
    appliesTo: 'geometry',
    operand: 'object',
    object: dWithinInput,
    sql: (left, _right, f = {}) => `ST_3DDWithin(${left}, ${f.from}, ${f.distance})`,
    description: 'is the column within a given 3D distance from the given geometry value',
    extension: 'postgis',
  },
  // Raster columns (postgis_raster): values are hex WKB strings, as PostgreSQL writes them.
  _st_intersects_rast: spatial('ST_Intersects', 'raster', 'does the column intersect the given raster value'),
  _st_intersects_nband_geom: {
    appliesTo: 'raster',
    operand: 'object',
    object: () => ({
      name: 'st_intersects_nband_geom_input',
      fields: [field('nband', 'Int'), field('geommin', 'geometry')],
    }),
    sql: (left, _right, f = {}) => `ST_Intersects(${left}, ${f.nband}, ${f.geommin})`,
    description: 'do the pixels of band nband of the column intersect the given geometry value',
    extension: 'postgis_raster',
  },
  _st_intersects_geom_nband: {
    appliesTo: 'raster',
    operand: 'object',
    object: () => ({
      name: 'st_intersects_geom_nband_input',
      fields: [field('geommin', 'geometry'), field('nband', 'Int', false)],
    }),
    sql: (left, _right, f = {}) => `ST_Intersects(${left}, ${f.geommin}, ${f.nband})`,
    description: 'does the column (band nband when given, else its convex hull) intersect the given geometry value',
    extension: 'postgis_raster',
  },
  // `{_cast: {geography: {...}}}`: the planner and the permission parser expand it into comparisons of
  // the cast column (BoolExp `compare` with `cast`), so its own SQL form is never written.
  _cast: {
    appliesTo: 'castable',
    operand: 'cast',
    sql: () => {
      throw new Error('_cast is expanded into comparisons of the cast column');
    },
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
  // raster has equality but no order.
  ordered: (c) => c.scalar !== 'json' && c.scalar !== 'raster' && !c.enumValues,
  text: (c) => isTextLike(c.scalar),
  jsonb: (c) => JSON_SCALARS.has(c.scalar),
  ltree: (c) => c.scalar === 'ltree',
  geometry: (c) => c.scalar === 'geometry',
  geography: (c) => c.scalar === 'geography',
  spatial: (c) => c.scalar === 'geometry' || c.scalar === 'geography',
  raster: (c) => c.scalar === 'raster',
  castable: (c) => Object.hasOwn(CAST_TARGETS, c.scalar),
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
    case 'object':
    case 'cast':
      // Bound field by field (objectOperands) or expanded (castTarget): never as one value.
      return { sqlType: 'boolean', array: false };
  }
}

const FIELD_SQL_TYPE: Record<Exclude<OperandField['type'], 'column'>, string> = {
  geometry: 'geometry',
  Float: 'float8',
  Int: 'integer',
  Boolean: 'boolean',
};

/**
 * The bound values of an object operand (`_st_d_within: {distance, from}`), given the source of each
 * field present; a field left out is bound as its default, or NULL.
 */
export function objectOperands<R>(
  op: CompareOp,
  column: ComparedColumn,
  sourceOf: (name: string) => R | undefined,
  literal: (value: unknown) => R,
): Record<string, { source: R; sqlType: string }> {
  const spec = (OPERATORS[op] as ComparisonOperator).object!(column);
  return Object.fromEntries(
    spec.fields.map((f) => [
      f.name,
      {
        source: sourceOf(f.name) ?? literal(f.default ?? null),
        sqlType: f.type === 'column' ? column.sqlType : FIELD_SQL_TYPE[f.type],
      },
    ]),
  );
}

/** The type `_cast: {<name>: ...}` casts a column of scalar `scalar` to, if it may. */
export function castTarget(scalar: string, name: string): { scalar: string; sqlType: string } | undefined {
  const targets = CAST_TARGETS[scalar];
  return targets && Object.hasOwn(targets, name) ? targets[name] : undefined;
}

/** Hasura's jsonb update operators (`_append: {col: value}` ...), on update_T, _by_pk and _many. */
export type JsonbOperator = '_append' | '_prepend' | '_delete_key' | '_delete_elem' | '_delete_at_path';
