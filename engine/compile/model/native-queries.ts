import { asDbError, type Queryable } from '../../core/db/database';
import { ident } from '../../core/db/sql';
import { resolveTypes, type ResolvedType } from './logical-models';
import { MetadataError, placeIn } from './load';
import type { Located, NativeQueryJson } from './metadata-types';
import type { NativeQuery, NativeQueryArgument, Table } from './model-types';
import { nativeQueryFromItem } from './native-query-code';
import { scalarForType } from './scalar-types';

/**
 * Native queries (Hasura's `native_queries` of a source): SQL whose rows have a logical model's fields,
 * with `{{argument}}` placeholders. Each becomes a query root field; its code is checked here, once,
 * so that a mistake stops start-up with the file and place instead of failing a request later.
 */

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const VALID_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

type Part = NativeQuery['parts'][number];

/** Cuts the code at its placeholders; PostgreSQL's own `$1` would collide with the engine's parameters. */
function splitCode(nq: Located<NativeQueryJson>): Part[] {
  const at = placeIn(nq.where, 'code');
  const code = nq.json.code.replace(/[\s;]+$/, '');
  if (/\$\d/.test(code)) throw new MetadataError(nq.file, at, 'use {{argument}} placeholders, not $1-style parameters');
  const parts: Part[] = [];
  let last = 0;
  for (const m of code.matchAll(PLACEHOLDER)) {
    if (!VALID_NAME.test(m[1])) throw new MetadataError(nq.file, at, `invalid placeholder {{${m[1]}}}`);
    parts.push(code.slice(last, m.index), { argument: m[1] });
    last = m.index! + m[0].length;
  }
  parts.push(code.slice(last));
  if (parts.some((p) => typeof p === 'string' && (p.includes('{{') || p.includes('}}')))) {
    throw new MetadataError(nq.file, at, 'unbalanced {{ or }} in the code');
  }
  return parts;
}

function argumentsOf(
  nq: Located<NativeQueryJson>,
  parts: Part[],
  types: Map<string, ResolvedType>,
): NativeQueryArgument[] {
  const used = new Set(parts.flatMap((p) => (typeof p === 'string' ? [] : [p.argument])));
  const declared = Object.entries(nq.json.arguments ?? {});
  for (const name of used) {
    if (!declared.some(([n]) => n === name))
      throw new MetadataError(
        nq.file,
        placeIn(nq.where, 'code'),
        `placeholder {{${name}}} has no argument "${name}" in arguments`,
      );
  }
  return declared.map(([name, a]) => {
    const at = placeIn(nq.where, `arguments.${name}`);
    if (!VALID_NAME.test(name)) throw new MetadataError(nq.file, at, `"${name}" is not a valid GraphQL name`);
    if (!used.has(name)) throw new MetadataError(nq.file, at, `argument "${name}" is not used in the code`);
    const t = types.get(a.type);
    if (!t) throw new MetadataError(nq.file, `${at}.type`, `unknown PostgreSQL type "${a.type}"`);
    return {
      name,
      sqlType: t.sqlType,
      scalar: scalarForType(t.typeName, t.typeKind),
      nullable: a.nullable ?? false,
      description: a.description,
    };
  });
}

/**
 * Runs the code once with every argument NULL and no rows wanted, selecting each logical model field:
 * the FROM item requests will use, so a syntax error, an unknown table or a field the code does not
 * return is found now. Arguments of one type share a placeholder, as the request's SQL writer binds
 * equal values once.
 */
async function probe(db: Queryable, query: NativeQuery, nq: Located<NativeQueryJson>): Promise<void> {
  const placeholders = new Map<string, string>();
  const typeOf = new Map(query.arguments.map((a) => [a.name, a.sqlType]));
  const from = nativeQueryFromItem(query, (argument) => {
    const sqlType = typeOf.get(argument)!;
    if (!placeholders.has(sqlType)) placeholders.set(sqlType, `$${placeholders.size + 1}::${sqlType}`);
    return placeholders.get(sqlType)!;
  });
  const columns = query.returns.columns.map((c) => `"_nq".${ident(c.name)}`).join(', ');
  try {
    await db.query(
      `SELECT ${columns} FROM ${from} AS "_nq" LIMIT 0`,
      [...placeholders].map(() => null),
    );
  } catch (err) {
    const e = asDbError(err);
    if (!e) throw err;
    throw new MetadataError(
      nq.file,
      placeIn(nq.where, 'code'),
      `the SQL fails for logical model "${query.returns.name}": ${e.message}`,
    );
  }
}

/** Root field names tables and actions already use. */
function rootFieldsOf(tables: Table[], actions: string[]): Set<string> {
  return new Set([...tables.flatMap((t) => Object.values(t.rootFields).filter((n): n is string => !!n)), ...actions]);
}

/** The native queries, each checked against its logical model and the database. */
export async function buildNativeQueries(
  db: Queryable,
  queries: Located<NativeQueryJson>[],
  models: Map<string, Table>,
  tables: Table[],
  actions: string[],
): Promise<NativeQuery[]> {
  const types = await resolveTypes(
    db,
    queries.flatMap((q) => Object.values(q.json.arguments ?? {}).map((a) => a.type)),
  );
  const taken = rootFieldsOf(tables, actions);
  const out: NativeQuery[] = [];
  for (const nq of queries) {
    const name = nq.json.root_field_name;
    const at = placeIn(nq.where, 'root_field_name');
    if (!VALID_NAME.test(name)) throw new MetadataError(nq.file, at, `"${name}" is not a valid GraphQL name`);
    if (taken.has(name)) throw new MetadataError(nq.file, at, `root field "${name}" is already a root field`);
    const returns = models.get(nq.json.returns);
    if (!returns)
      throw new MetadataError(nq.file, placeIn(nq.where, 'returns'), `unknown logical model "${nq.json.returns}"`);
    const parts = splitCode(nq);
    const query: NativeQuery = {
      rootField: name,
      returns,
      arguments: argumentsOf(nq, parts, types),
      parts,
      description: nq.json.description,
    };
    await probe(db, query, nq);
    taken.add(name);
    out.push(query);
  }
  return out;
}
