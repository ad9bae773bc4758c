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

/**
 * PostGIS (extension postgis): geometry and geography columns. In GraphQL their values are GeoJSON
 * objects; they are bound as text through ST_GeomFromGeoJSON and written out with ST_AsGeoJSON.
 * A database without PostGIS has no such columns, so none of this is offered there.
 */
export const GEO_SCALARS = new Set(['geometry', 'geography']);

/** The PostGIS base type of an SQL type (`geometry(Point,4326)` is a geometry), if it is one. */
export function geoType(sqlType: string): 'geometry' | 'geography' | undefined {
  const m = /^(?:"?[\w$]+"?\.)?"?(geometry|geography)"?(?:\(.*\))?$/.exec(sqlType.trim());
  return m ? (m[1] as 'geometry' | 'geography') : undefined;
}

/**
 * The types a column's values may be cast to in a boolean expression (`_cast: {geography: {...}}`), as
 * Hasura offers them: between geometry and geography, and jsonb to String (its JSON text).
 */
export const CAST_TARGETS: Readonly<Record<string, Readonly<Record<string, { scalar: string; sqlType: string }>>>> = {
  geometry: { geography: { scalar: 'geography', sqlType: 'geography' } },
  geography: { geometry: { scalar: 'geometry', sqlType: 'geometry' } },
  jsonb: { String: { scalar: 'String', sqlType: 'text' } },
};

export function isTextLike(scalar: string): boolean {
  return TEXT_SCALARS.has(scalar);
}
