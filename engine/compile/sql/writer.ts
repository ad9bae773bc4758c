import { ident, stringLiteral } from '../../core/db/sql';
import type { Table } from '../model/model-types';
import type { ValueRef, ValueSource } from '../plan/ir';

/** A placeholder of a compiled statement: where its value comes from and how it is written. */
export interface ParamSlot {
  source: ValueSource;
  sqlType: string;
  array: boolean;
}

export { ident, stringLiteral };
export const tableName = (t: Table) => `${ident(t.schema)}.${ident(t.name)}`;

/** How values are written into the response JSON. */
export interface JsonOutput {
  /** bigint, numeric, double precision and money as JSON strings (STRINGIFY_NUMERIC_TYPES). */
  stringifyNumeric?: boolean;
}

/**
 * Accumulates the parameters and table aliases of one SQL statement. Every value goes through
 * `bind`, which returns a cast placeholder (`$3::uuid`); identical sources share one placeholder.
 * The first `reserved` placeholders are left to the statement's caller, which binds them itself.
 */
export class SqlWriter {
  readonly params: ParamSlot[] = [];
  private byKey = new Map<string, number>();
  private aliases = 0;

  constructor(
    private readonly reserved = 0,
    readonly output: JsonOutput = {},
  ) {}

  alias(): string {
    return `_t${this.aliases++}`;
  }

  bind(ref: ValueRef): string {
    const array = ref.array === true;
    const key = `${JSON.stringify(ref.source)}|${ref.sqlType}|${array}`;
    let n = this.byKey.get(key);
    if (n === undefined) {
      this.params.push({ source: ref.source, sqlType: ref.sqlType, array });
      n = this.reserved + this.params.length;
      this.byKey.set(key, n);
    }
    return `$${n}::${ref.sqlType}${array ? '[]' : ''}`;
  }
}
