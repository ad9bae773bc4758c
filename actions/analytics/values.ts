import type { FieldType } from './dataset';
import { invalid } from './errors';

const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,6})?)?)?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * A request value checked against a field type, as the text of a parameter and its SQL cast.
 * Datetimes without a zone are UTC; they compare with the datasets' `timestamp` columns (UTC).
 */
export function sqlValue(
  type: FieldType,
  value: unknown,
  path: string,
): { text: string; cast: string; sql?: (p: string) => string } {
  switch (type) {
    case 'string':
      if (typeof value !== 'string') throw invalid(`expected a string at ${path}, got ${JSON.stringify(value)}`, path);
      return { text: value, cast: 'text' };
    case 'float':
      if (typeof value !== 'number' || !Number.isFinite(value))
        throw invalid(`expected a number at ${path}, got ${JSON.stringify(value)}`, path);
      return { text: String(value), cast: 'float8' };
    case 'int':
      if (typeof value !== 'number' || !Number.isInteger(value))
        throw invalid(`expected an integer at ${path}, got ${JSON.stringify(value)}`, path);
      return { text: String(value), cast: 'bigint' };
    case 'boolean':
      if (typeof value !== 'boolean')
        throw invalid(`expected a boolean at ${path}, got ${JSON.stringify(value)}`, path);
      return { text: String(value), cast: 'boolean' };
    case 'datetime': {
      const m = typeof value === 'string' ? TIMESTAMP.exec(value.trim()) : null;
      const ms = m
        ? Date.parse(
            `${m[1]}-${m[2]}-${m[3]}T${m[4] ?? '00'}:${m[5] ?? '00'}:${m[6] ?? '00'}${m[7] ?? ''}${normalZone(m[8])}`,
          )
        : NaN;
      if (!m || Number.isNaN(ms))
        throw invalid(
          `expected an ISO 8601 date-time at ${path} (e.g. 2026-01-31T23:59:59Z), got ${JSON.stringify(value)}`,
          path,
        );
      return { text: new Date(ms).toISOString(), cast: 'timestamptz', sql: (p) => `(${p} AT TIME ZONE 'UTC')` };
    }
    case 'json':
      if (value === undefined) throw invalid(`expected a JSON value at ${path}`, path);
      return { text: typeof value === 'string' ? safeJson(value) : JSON.stringify(value), cast: 'jsonb' };
  }
}

function normalZone(zone: string | undefined): string {
  if (!zone || zone === 'z' || zone === 'Z') return 'Z';
  const m = /^([+-]\d{2}):?(\d{2})?$/.exec(zone)!;
  return `${m[1]}:${m[2] ?? '00'}`;
}

/** A string that is JSON stays as it is; any other string is a JSON string. */
function safeJson(s: string): string {
  try {
    JSON.parse(s);
    return s;
  } catch {
    return JSON.stringify(s);
  }
}

/** The placeholder of a checked value. */
export function placeholder(
  v: { text: string; cast: string; sql?: (p: string) => string },
  bind: (text: string, cast: string) => string,
): string {
  const p = bind(v.text, v.cast);
  return v.sql ? v.sql(p) : p;
}
