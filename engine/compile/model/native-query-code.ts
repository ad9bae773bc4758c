import type { NativeQuery } from './model-types';

/**
 * A native query as a FROM item: its code in parentheses, each `{{argument}}` replaced by what
 * `placeholder` writes for it (a bind parameter cast to the argument's type). Requests (sql/) and the
 * start-up check of the code (native-queries.ts) both write it here, so the check runs the text that
 * requests will run. The newline before the closing parenthesis keeps a trailing `--` comment in the
 * code from swallowing it.
 */
export function nativeQueryFromItem(query: NativeQuery, placeholder: (argument: string) => string): string {
  const sql = query.parts.map((p) => (typeof p === 'string' ? p : placeholder(p.argument))).join('');
  return `(${sql}\n)`;
}
