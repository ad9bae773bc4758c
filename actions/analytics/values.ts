import { sql, type Sql } from '../api';
import type { FieldType } from './dataset';
import { invalid } from './errors';

const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,6})?)?)?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * A request value checked against a field type, as a bound value with its SQL cast. Datetimes
 * without a zone are UTC; they compare with the datasets' `timestamp` columns (UTC).
 */
export function boundValue(type: FieldType, value: unknown, path: string): Sql {
  switch (type) {
    case 'string':
      if (typeof value !== 'string') throw invalid(`expected a string at ${path}, got ${JSON.stringify(value)}`, path);
      return sql`${value}::text`;
    case 'float':
      if (typeof value !== 'number' || !Number.isFinite(value))
        throw invalid(`expected a number at ${path}, got ${JSON.stringify(value)}`, path);
      return sql`${value}::float8`;
    case 'int':
      if (typeof value !== 'number' || !Number.isInteger(value))
        throw invalid(`expected an integer at ${path}, got ${JSON.stringify(value)}`, path);
      return sql`${value}::bigint`;
    case 'boolean':
      if (typeof value !== 'boolean')
        throw invalid(`expected a boolean at ${path}, got ${JSON.stringify(value)}`, path);
      return sql`${value}::boolean`;
    case 'datetime':
      return sql`(${utcTimestamp(value, path)}::timestamptz AT TIME ZONE 'UTC')`;
    case 'json':
      if (value === undefined) throw invalid(`expected a JSON value at ${path}`, path);
      return sql`${typeof value === 'string' ? safeJson(value) : JSON.stringify(value)}::jsonb`;
  }
}

/** An ISO 8601 date-time (UTC without a zone) as the ISO text of its instant. */
function utcTimestamp(value: unknown, path: string): string {
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
  return new Date(ms).toISOString();
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
