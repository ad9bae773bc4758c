import { validationError } from '../../core/errors';

/**
 * The `path` argument of a json or jsonb column, as Hasura reads it: an optional `$`, then keys and
 * array indexes, `$.a.b`, `a.b`, `$.a[0]`, `$["a b"][2]` (a first key may omit its dot). The result
 * is PostgreSQL's path array for `#>`, bound as a text[] parameter: indexes are elements like keys.
 */
export function parseJsonPath(text: string, at: string): string[] {
  const fail = (why: string, pos: number): never => {
    throw validationError(`parse json path error: ${why} at position ${pos} of "${text}"`, at);
  };
  const out: string[] = [];
  let i = text.startsWith('$') ? 1 : 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '[') i = bracket(text, i, out, fail);
    else if (c === '.' || (i === 0 && c !== ']')) {
      const start = c === '.' ? i + 1 : i;
      let end = start;
      while (end < text.length && !'.[]'.includes(text[end])) end++;
      if (end === start) fail('expected a key', start);
      out.push(text.slice(start, end));
      i = end;
    } else fail(`unexpected "${c}"`, i);
  }
  return out;
}

/** `[0]`, `["key"]` or `['key']` at `i`: pushes its element, returns the index after it. */
function bracket(text: string, i: number, out: string[], fail: (why: string, pos: number) => never): number {
  const quote = text[i + 1];
  if (quote === '"' || quote === "'") {
    const close = text.indexOf(quote, i + 2);
    if (close < 0 || text[close + 1] !== ']') return fail(`expected ${quote}] to close the key`, i + 2);
    out.push(text.slice(i + 2, close));
    return close + 2;
  }
  const close = text.indexOf(']', i);
  if (close < 0) return fail('expected "]"', text.length);
  const index = text.slice(i + 1, close);
  if (!/^[0-9]+$/.test(index)) return fail('expected an array index (digits) or a quoted key', i + 1);
  out.push(index);
  return close + 1;
}
