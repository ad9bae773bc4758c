import type { Queryable } from '../../core/db/database';

/** What the database catalog says about one table or view. */
export interface CatalogColumn {
  name: string;
  /** format_type(): the exact SQL type, used for casts (`timestamp without time zone`, `"my_enum"`). */
  sqlType: string;
  /** The base type's name (`int4`, `text`, `uuid`); for arrays the element's name with `[]`. */
  typeName: string;
  /** e = PostgreSQL enum, b = base, d = domain ... */
  typeKind: string;
  notNull: boolean;
  hasDefault: boolean;
  isIdentity: boolean;
  isGenerated: boolean;
}
export interface CatalogConstraint {
  name: string;
  columns: string[];
}
export interface CatalogForeignKey extends CatalogConstraint {
  refSchema: string;
  refTable: string;
  refColumns: string[];
}
export interface CatalogTable {
  schema: string;
  name: string;
  kind: 'table' | 'view';
  columns: CatalogColumn[];
  primaryKey?: CatalogConstraint;
  uniques: CatalogConstraint[];
  foreignKeys: CatalogForeignKey[];
}

// One round trip, JSON assembled by PostgreSQL and read back as text so both drivers agree. Columns
// and constraints are each gathered in one pass over the schemas' relations and grouped by relation
// (a subquery per relation had the planner scan pg_type once per table: 4 times slower on PGlite,
// where it was most of the model's start-up).
const CATALOG_SQL = `
WITH rels AS (
  SELECT c.oid, n.nspname, c.relname, c.relkind
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND n.nspname = ANY($1::text[])
), cols AS (
  SELECT a.attrelid, json_agg(json_build_object(
      'name', a.attname,
      'sqlType', format_type(a.atttypid, a.atttypmod),
      'typeName', CASE WHEN t.typcategory = 'A' THEN et.typname || '[]' ELSE bt.typname END,
      'typeKind', coalesce(bt.typtype, t.typtype),
      'notNull', a.attnotnull,
      'hasDefault', a.atthasdef,
      'isIdentity', a.attidentity <> '',
      'isGenerated', a.attgenerated <> '') ORDER BY a.attnum) AS columns
  FROM rels r
  JOIN pg_attribute a ON a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped
  JOIN pg_type t ON t.oid = a.atttypid
  LEFT JOIN pg_type et ON et.oid = t.typelem AND t.typcategory = 'A'
  LEFT JOIN pg_type bt ON bt.oid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END
  GROUP BY a.attrelid
), cons AS (
  SELECT k.conrelid, json_agg(json_build_object(
      'name', k.conname, 'type', k.contype,
      'columns', (SELECT json_agg(a.attname ORDER BY u.i) FROM unnest(k.conkey) WITH ORDINALITY u(num, i)
                  JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.num),
      'refSchema', rn.nspname, 'refTable', rc.relname,
      'refColumns', (SELECT json_agg(a.attname ORDER BY u.i) FROM unnest(k.confkey) WITH ORDINALITY u(num, i)
                  JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.num))) AS constraints
  FROM rels r
  JOIN pg_constraint k ON k.conrelid = r.oid AND k.contype IN ('p', 'u', 'f')
  LEFT JOIN pg_class rc ON rc.oid = k.confrelid
  LEFT JOIN pg_namespace rn ON rn.oid = rc.relnamespace
  GROUP BY k.conrelid
)
SELECT coalesce(json_agg(json_build_object(
  'schema', r.nspname, 'name', r.relname, 'kind', CASE WHEN r.relkind IN ('r','p','f') THEN 'table' ELSE 'view' END,
  'columns', coalesce(cols.columns, '[]'::json),
  'constraints', coalesce(cons.constraints, '[]'::json)
)), '[]'::json)::text AS catalog
FROM rels r LEFT JOIN cols ON cols.attrelid = r.oid LEFT JOIN cons ON cons.conrelid = r.oid`;

interface RawConstraint {
  name: string;
  type: 'p' | 'u' | 'f';
  columns: string[];
  refSchema: string | null;
  refTable: string | null;
  refColumns: string[] | null;
}

/** Reads tables, columns, keys and foreign keys of the given schemas, keyed by `schema.name`. */
export async function readCatalog(db: Queryable, schemas: string[]): Promise<Map<string, CatalogTable>> {
  const literal = `{${schemas.map((s) => `"${s.replace(/(["\\])/g, '\\$1')}"`).join(',')}}`;
  const [row] = await db.query(CATALOG_SQL, [literal]);
  const raw = JSON.parse(String(row.catalog)) as (Omit<CatalogTable, 'primaryKey' | 'uniques' | 'foreignKeys'> & {
    constraints: RawConstraint[];
  })[];
  const out = new Map<string, CatalogTable>();
  for (const t of raw) {
    const pk = t.constraints.find((k) => k.type === 'p');
    out.set(`${t.schema}.${t.name}`, {
      schema: t.schema,
      name: t.name,
      kind: t.kind,
      columns: t.columns,
      primaryKey: pk && { name: pk.name, columns: pk.columns },
      uniques: t.constraints.filter((k) => k.type === 'u').map((k) => ({ name: k.name, columns: k.columns })),
      foreignKeys: t.constraints
        .filter((k) => k.type === 'f')
        .map((k) => ({
          name: k.name,
          columns: k.columns,
          refSchema: k.refSchema!,
          refTable: k.refTable!,
          refColumns: k.refColumns!,
        })),
    });
  }
  return out;
}
