import { sql, type Sql, type SqlValue } from '../api';
import type { FieldType } from './dataset';
import { invalid } from './errors';
import { slot } from './slots';

const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,6})?)?)?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * A request value checked against a field type, as a bound value with its SQL cast. Datetimes
 * without a zone are UTC; they compare with the datasets' `timestamp` columns (UTC). The value is a
 * slot (slots.ts) read at `path`, so that a cached statement binds another request's value there.
 */
export function boundValue(type: FieldType, value: unknown, path: string): Sql {
  const bound = slot(checkedValue(type, value, path), path, (v) => checkedValue(type, v, path));
  switch (type) {
    case 'string':
      return sql`${bound}::text`;
    case 'float':
      return sql`${bound}::float8`;
    case 'int':
      return sql`${bound}::bigint`;
    case 'boolean':
      return sql`${bound}::boolean`;
    case 'datetime':
      return sql`(${bound}::timestamptz AT TIME ZONE 'UTC')`;
    case 'json':
      return sql`${bound}::jsonb`;
  }
}

/** A request value checked against a field type, as the value bound for it. */
export function checkedValue(type: FieldType, value: unknown, path: string): SqlValue {
  switch (type) {
    case 'string':
      if (typeof value !== 'string') throw invalid(`expected a string at ${path}, got ${JSON.stringify(value)}`, path);
      return value;
    case 'float':
      if (typeof value !== 'number' || !Number.isFinite(value))
        throw invalid(`expected a number at ${path}, got ${JSON.stringify(value)}`, path);
      return value;
    case 'int':
      if (typeof value !== 'number' || !Number.isInteger(value))
        throw invalid(`expected an integer at ${path}, got ${JSON.stringify(value)}`, path);
      return value;
    case 'boolean':
      if (typeof value !== 'boolean')
        throw invalid(`expected a boolean at ${path}, got ${JSON.stringify(value)}`, path);
      return value;
    case 'datetime':
      return utcTimestamp(value, path);
    case 'json':
      if (value === undefined) throw invalid(`expected a JSON value at ${path}`, path);
      return typeof value === 'string' ? safeJson(value) : JSON.stringify(value);
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
