import type { NativeQuery } from '../model/model';
import type { ValueRef } from '../plan/ir';
import type { SqlWriter } from './writer';

/**
 * A native query as a FROM item: its code in parentheses, each `{{argument}}` replaced by a bind
 * placeholder cast to the argument's type. Values never enter the SQL text, so the statement stays
 * cacheable and a value cannot change its meaning. The newline before the closing parenthesis keeps
 * a trailing `--` comment in the code from swallowing it.
 */
export function nativeQuerySql(query: NativeQuery, args: ReadonlyMap<string, ValueRef>, w: SqlWriter): string {
  const sql = query.parts.map((p) => (typeof p === 'string' ? p : w.bind(args.get(p.argument)!))).join('');
  return `(${sql}\n)`;
}
