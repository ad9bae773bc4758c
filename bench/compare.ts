import { isDeepStrictEqual } from 'node:util';

/**
 * Two GraphQL `data` values compared by value, for floors that build their answer themselves: numbers
 * to a relative 1e-9 (sums may add in another order), the keys in `generated` (values the database
 * generates, such as a new row's id) only as present in both, and lists in any order with `unordered`
 * (a query without order_by, whose order PostgreSQL chooses). Answers where the first difference is, or
 * undefined when there is none.
 */
export function valueDifference(
  a: unknown,
  b: unknown,
  opts: { generated?: readonly string[]; unordered?: boolean } = {},
  at = 'data',
): string | undefined {
  const show = (v: unknown) => JSON.stringify(v)?.slice(0, 200);
  if (typeof a === 'number' && typeof b === 'number')
    return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a)) ? undefined : `${at}: ${a} and ${b}`;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return `${at}: ${a.length} and ${b.length} items`;
    const order = (xs: unknown[]) => (opts.unordered ? [...xs].sort((x, y) => cmp(key(x), key(y))) : xs);
    const [xs, ys] = [order(a), order(b)];
    for (let i = 0; i < xs.length; i++) {
      const d = valueDifference(xs[i], ys[i], opts, `${at}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    if (keys.join() !== Object.keys(b).join()) return `${at}: keys ${keys.join(',')} and ${Object.keys(b).join(',')}`;
    for (const k of keys) {
      if (opts.generated?.includes(k)) continue;
      const d = valueDifference(a[k], b[k], opts, `${at}.${k}`);
      if (d) return d;
    }
    return undefined;
  }
  return a === b ? undefined : `${at}: ${show(a)} and ${show(b)}`;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const key = (v: unknown) => JSON.stringify(v);
const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

/** A hand-written floor's result column: its name and how its values are compared. */
export interface FloorColumn {
  name: string;
  type: 'string' | 'float' | 'datetime' | 'json';
}

/**
 * A floor's rows as the floor route writes them (floor-server.ts): the columns in order, dates as
 * ISO text, undefined as null.
 */
export function floorRowsOf(
  columns: readonly FloorColumn[],
  rows: Record<string, unknown>[],
): Record<string, unknown>[] {
  return rows.map((row) =>
    Object.fromEntries(
      columns.map((c) => {
        const v = row[c.name];
        return [c.name, v instanceof Date ? v.toISOString() : (v ?? null)];
      }),
    ),
  );
}

/**
 * Rows of a hand-written floor against the engine's: the same rows in the same order with the same
 * values (floats to a relative 1e-9, as sums may add in another order; date-times as instants, a
 * time without zone read as UTC; json by value). Answers the first difference, or undefined.
 */
export function rowsDifference(
  columns: readonly FloorColumn[],
  a: Record<string, unknown>[],
  b: Record<string, unknown>[],
): string | undefined {
  if (a.length !== b.length) return `engine has ${a.length} rows, floor ${b.length}`;
  const instant = (v: unknown) => Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(String(v)) ? String(v) : `${v}Z`);
  for (let i = 0; i < a.length; i++) {
    for (const c of columns) {
      const x = a[i][c.name];
      const y = b[i][c.name];
      const same =
        c.type === 'float'
          ? Math.abs(Number(x) - Number(y)) <= 1e-9 * Math.max(1, Math.abs(Number(x)))
          : c.type === 'datetime'
            ? instant(x) === instant(y)
            : c.type === 'json'
              ? isDeepStrictEqual(x, y)
              : x === y;
      if (!same) return `row ${i} ${c.name}: engine ${JSON.stringify(x)}, floor ${JSON.stringify(y)}`;
    }
  }
  return undefined;
}
