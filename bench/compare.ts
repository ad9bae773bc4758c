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
