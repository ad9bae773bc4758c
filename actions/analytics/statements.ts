import { Lru, type Param, type TextRowsWriter } from '../api';
import { buildQuery, checkedPage, MAX_ROWS, roundedLimit, type AnalyticRequest } from './builder';
import type { Dataset } from './dataset';
import { bindTemplate, templateOf, TENANT, type Template } from './slots';
import { UUID_TEXT } from './where';

/**
 * Analytic statements built once per request shape: building one (builder.ts) took 50-130 µs of
 * every request's CPU, while requests of one operation mostly differ only in their values. A
 * request's shape is all of it that can change the statement's text: the dataset, the selection,
 * columns, group_by, column_transformations and order_by as given, the structure of `where` (its
 * keys, list lengths and which values are null), the values there that the text depends on
 * (booleans, for `_is_null`; strings that name a where field, for `_eq_f`...; whether a string is a
 * uuid's text, for a uuid field's `_eq`/`_in`), the limit's rounded form (rowsOf cuts the rows to the exact limit),
 * and whether there is an offset. Two requests of one shape get the same text, and the second only
 * binds its values (slots.ts says which value goes where, and checks each as the builder would).
 *
 * The statement's text is the builder's, unchanged: prepared statements and plans are the same.
 * Shapes that take clients' values (a string that names a where field, a transformation's
 * arguments, a list's length) are bounded by the cache's fixed size, not by what clients send.
 */
export const STATEMENTS_CACHED = 512;

export interface AnalyticStatement {
  text: string;
  params: Param[];
  /** The writer of the returned columns' JSON and the most rows to answer, for rowsOf and rowsAnswer. */
  writer: TextRowsWriter;
  limit: number;
}

interface Cached extends Template {
  writer: TextRowsWriter;
  ordered: boolean;
}

const cache = new Lru<string, Cached>(STATEMENTS_CACHED);
const ids = new WeakMap<Dataset, number>();
let datasets = 0;

/** The statement of an analytic request: bound from the cache when its shape was built before. */
export function analyticStatement(
  ds: Dataset,
  req: AnalyticRequest,
  tenant: string,
  selected?: readonly string[],
): AnalyticStatement {
  const { key, values } = requestShape(ds, req, tenant, selected);
  const hit = cache.get(key);
  if (hit) {
    // In the builder's order: the where values are checked before the page.
    const params = bindTemplate(hit, values);
    const { limit } = checkedPage(req, hit.ordered);
    return { text: hit.text, params, writer: hit.writer, limit };
  }
  const built = buildQuery(ds, req, tenant, selected);
  const sources = new Map<string, number>([
    [TENANT, 0],
    ['$.offset', 1],
  ]);
  whereShape(ds, req.where, values.slice(0, 2), { sources, path: '$.where' });
  // Transformations' values are part of the key: the same in every request of the shape.
  const template = templateOf(built.fragment, sources, '$.column_transformations');
  if (template)
    cache.set(key, {
      ...template,
      writer: built.writer,
      ordered: built.ordered,
    });
  const { text, params, writer, limit } = built;
  return { text, params, writer, limit };
}

/** How many shapes the cache holds now (for tests). */
export function cachedStatements(): number {
  return cache.size;
}

/**
 * Shapes of frozen requests: a document's constant arguments are one frozen object for all its
 * requests (engine/compile/execute/direct-field.ts), and its selection one frozen list (selection.ts),
 * so their shape and values are made once. Held weakly: they go with the document.
 */
const shapes = new WeakMap<object, { ds: Dataset; selected?: readonly string[]; key: string; rest: unknown[] }>();

/** The request's shape (shapeKey) and its values: the tenant's, the offset, then the where leaves. */
function requestShape(ds: Dataset, req: AnalyticRequest, tenant: string, selected: readonly string[] | undefined) {
  const stable = Object.isFrozen(req) && (selected === undefined || Object.isFrozen(selected));
  const known = stable ? shapes.get(req) : undefined;
  if (known && known.ds === ds && known.selected === selected)
    return { key: known.key, values: [tenant, ...known.rest] };
  const values: unknown[] = [tenant, req.offset ?? 0];
  const key = shapeKey(ds, req, selected, values);
  if (stable) shapes.set(req, { ds, selected, key, rest: values.slice(1) });
  return { key, values };
}

/** The request's shape as a string (see above); its where values are appended to `values`, in order. */
function shapeKey(ds: Dataset, req: AnalyticRequest, selected: readonly string[] | undefined, values: unknown[]) {
  let id = ids.get(ds);
  if (id === undefined) ids.set(ds, (id = ++datasets));
  const limit = req.limit ?? MAX_ROWS;
  const page = typeof limit === 'number' ? String(roundedLimit(limit)) : JSON.stringify(limit ?? null);
  const offset = req.offset === null || req.offset === undefined ? '-' : req.offset ? 'o' : '0';
  return [
    id,
    selected ? JSON.stringify(selected) : '*',
    JSON.stringify(req.columns),
    JSON.stringify(req.group_by),
    JSON.stringify(req.column_transformations),
    JSON.stringify(req.order_by),
    page,
    offset,
    whereShape(ds, req.where, values),
  ].join('\u0001');
}

/**
 * The shape of a `where` value; its leaves (non-null scalars) are appended to `values`. With `at`,
 * each leaf's path (as the builder names it: `$.where.date._gte`, `[0]` for list items) is noted
 * with its index; a path seen twice (keys that hold dots) is noted as -1, which no slot may use.
 */
function whereShape(
  ds: Dataset,
  v: unknown,
  values: unknown[],
  at?: { sources: Map<string, number>; path: string },
): string {
  if (v === null || v === undefined) return 'N';
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++)
      out += `${whereShape(ds, v[i], values, at && { sources: at.sources, path: `${at.path}[${i}]` })},`;
    return `${out}]`;
  }
  if (typeof v === 'object') {
    let out = '{';
    for (const [k, x] of Object.entries(v))
      out += `${JSON.stringify(k)}:${whereShape(ds, x, values, at && { sources: at.sources, path: `${at.path}.${k}` })},`;
    return `${out}}`;
  }
  const index = values.push(v) - 1;
  if (at) at.sources.set(at.path, at.sources.has(at.path) ? -1 : index);
  if (typeof v === 'boolean') return v ? 't' : 'f';
  if (typeof v === 'number') return 'n';
  if (typeof v === 'string') return Object.hasOwn(ds.where, v) ? JSON.stringify(v) : UUID_TEXT.test(v) ? 'u' : 's';
  return typeof v;
}
