import { ident, stringLiteral } from '../../core/db/sql';
import type { Table } from '../model/model-types';
import { geoType } from '../model/scalar-types';
import type { ValueRef, ValueSource } from '../plan/ir';

/** A placeholder of a compiled statement: where its value comes from and how it is written. */
export interface ParamSlot {
  source: ValueSource;
  sqlType: string;
  array: boolean;
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
    const array = ref.array === true;
    const key = `${JSON.stringify(ref.source)}|${ref.sqlType}|${array}`;
    let n = this.byKey.get(key);
    if (n === undefined) {
      this.params.push({ source: ref.source, sqlType: ref.sqlType, array });
      n = this.reserved + this.params.length;
      this.byKey.set(key, n);
    }
    const geo = geoType(ref.sqlType);
    if (geo) return geoJsonValue(`$${n}`, geo, array);
    return `$${n}::${ref.sqlType}${array ? '[]' : ''}`;
  }
}
