import { nativeQueryFromItem } from '../model/native-query-code';
import type { NativeQuery } from '../model/model-types';
import type { ValueRef } from '../plan/ir';
import type { SqlWriter } from './writer';

/**
 * A native query as a FROM item, its arguments bound: values never enter the SQL text, so the
 * statement stays cacheable and a value cannot change its meaning.
 */
export function nativeQuerySql(query: NativeQuery, args: ReadonlyMap<string, ValueRef>, w: SqlWriter): string {
  return nativeQueryFromItem(query, (argument) => w.bind(args.get(argument)!));
}
