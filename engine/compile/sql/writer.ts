import { ident, stringLiteral } from '../../core/db/sql';
import type { Table } from '../model/model-types';
import { geoType } from '../model/scalar-types';
import type { ValueRef, ValueSource } from '../plan/ir';

/** A placeholder of a compiled statement: where its value comes from and how it is written. */
export interface ParamSlot {
  source: ValueSource;
  sqlType: string;
  array: boolean;
  /**
   * Set on a placeholder that takes many rows at once (sql/mutation.ts, an insert's objects): its value
   * is a JSON array with, for each row, the array of its slots' texts. `source` is then their list.
   */
  rows?: readonly (readonly ParamSlot[])[];
  /**
   * Set on a placeholder that takes a list variable whole, as the JSON of its items, which are an
   * insert's rows (sql/mutation.ts): the statement is the same for any number of them, so its plan
   * may serve every count (execute/compile.ts `countFreeVariables`).
   */
  wholeList?: boolean;
}

export { ident, stringLiteral };

/**
 * The type a placeholder's values may be unnested as when requests are coalesced (sql/multiplex.ts):
 * its own, so that each cohort's value is parsed once rather than wherever the statement casts it
 * (a filter's `$3::uuid` on a cohort's text was parsed again on every row it was compared with).
 * Undefined (text) for an array, whose values are array literals, and a geometry, read by a function.
 */
export function cohortType(slot: ParamSlot): string | undefined {
  return slot.array || geoType(slot.sqlType) ? undefined : slot.sqlType;
}
export const tableName = (t: Table) => `${ident(t.schema)}.${ident(t.name)}`;

/** How values are written into the response JSON. */
export interface JsonOutput {
  /** bigint, numeric, double precision and money as JSON strings (STRINGIFY_NUMERIC_TYPES). */
  stringifyNumeric?: boolean;
}

/**
 * A geometry or geography placeholder: its GeoJSON text read by ST_GeomFromGeoJSON (SRID 4326 unless
 * the value names a `crs`), as the base type; a column's typmod (`geometry(Point,4326)`) is checked
 * where the value is stored, and a predicate's operand need not be of the column's subtype.
 */
function geoJsonValue(placeholder: string, geo: 'geometry' | 'geography', array: boolean): string {
  if (array) return `ARRAY(SELECT ST_GeomFromGeoJSON(g)::${geo} FROM unnest(${placeholder}::text[]) AS g)`;
  return `ST_GeomFromGeoJSON(${placeholder}::text)::${geo}`;
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
    return castValue(`$${this.slot({ source: ref.source, sqlType: ref.sqlType, array: ref.array === true })}`, ref);
  }

  /**
   * Many rows of values as one placeholder, a JSON array of arrays of texts (`[["a","1"],...]`):
   * `$n` uncast. Each row's i-th text is read back as `castValue(<elem>->>i, rows[0][i])`.
   */
  bindRows(rows: readonly (readonly ValueRef[])[]): string {
    const slots = rows.map((row) =>
      row.map((ref) => ({ source: ref.source, sqlType: ref.sqlType, array: ref.array === true })),
    );
    const source: ValueSource = {
      from: 'list',
      items: slots.map((r) => ({ from: 'list', items: r.map((s) => s.source) })),
    };
    return `$${this.slot({ source, sqlType: 'json', array: false, rows: slots })}`;
  }

  /** A list variable whole, as the JSON of its items (`[{"name":"a"},...]`): `$n` uncast. */
  bindList(name: string): string {
    return `$${this.slot({ source: { from: 'variable', name, path: [] }, sqlType: 'json', array: false, wholeList: true })}`;
  }

  /** The placeholder number of a slot: identical slots share one. */
  private slot(slot: ParamSlot): number {
    const types = slot.rows ? JSON.stringify(slot.rows.map((r) => r.map((s) => [s.sqlType, s.array]))) : '';
    const key = `${JSON.stringify(slot.source)}|${slot.sqlType}|${slot.array}|${types}|${slot.wholeList === true}`;
    let n = this.byKey.get(key);
    if (n === undefined) {
      this.params.push(slot);
      n = this.reserved + this.params.length;
      this.byKey.set(key, n);
    }
    return n;
  }
}

/**
 * A value's text, a placeholder or a parenthesised expression (`$3`, `("_r"."v"->>0)`), as the SQL value
 * of its type: a cast, or a geometry read from GeoJSON.
 */
export function castValue(text: string, type: Omit<ValueRef, 'source'>): string {
  const array = type.array === true;
  const geo = geoType(type.sqlType);
  if (geo) return geoJsonValue(text, geo, array);
  return `${text}::${type.sqlType}${array ? '[]' : ''}`;
}
