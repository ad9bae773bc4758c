/**
 * PostgreSQL type names to the GraphQL scalar names Hasura gives them. A type not listed keeps its own
 * name as a scalar (its values pass through as strings and PostgreSQL checks them).
 */
const SCALAR_BY_TYPE: Record<string, string> = {
  int4: 'Int',
  int2: 'smallint',
  int8: 'bigint',
  float4: 'Float',
  float8: 'float8',
  numeric: 'numeric',
  bool: 'Boolean',
  text: 'String',
  varchar: 'String',
  bpchar: 'String',
  name: 'String',
  citext: 'citext',
  uuid: 'uuid',
  json: 'json',
  jsonb: 'jsonb',
  date: 'date',
  time: 'time',
  timetz: 'timetz',
  timestamp: 'timestamp',
  timestamptz: 'timestamptz',
  interval: 'interval',
  bytea: 'bytea',
  inet: 'inet',
  money: 'money',
};

export function scalarForType(typeName: string, typeKind: string): string {
  if (typeName.endsWith('[]')) return `_${typeName.slice(0, -2)}`;
  if (typeKind === 'e') return typeName; // a PostgreSQL enum: its values are checked by PostgreSQL
  return SCALAR_BY_TYPE[typeName] ?? typeName;
}

export const NUMERIC_SCALARS = new Set(['Int', 'smallint', 'bigint', 'Float', 'float8', 'numeric', 'money']);
export const TEXT_SCALARS = new Set(['String', 'citext']);
export const JSON_SCALARS = new Set(['jsonb']);
/** Scalars with an order, so max and min apply. */
export const ORDERED_SCALARS = new Set([
  ...NUMERIC_SCALARS,
  ...TEXT_SCALARS,
  'date',
  'time',
  'timetz',
  'timestamp',
  'timestamptz',
  'interval',
]);

export function isTextLike(scalar: string): boolean {
  return TEXT_SCALARS.has(scalar);
}
