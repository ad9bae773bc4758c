import { sql, type Sql } from '../api';
import { definitionSql, type Dataset, type Field, type FieldType } from './dataset';
import { invalid, unknownName } from './errors';
import { slot } from './slots';
import { boundValue } from './values';

/**
 * `column_transformations`: named expressions over row fields, from a fixed vocabulary. A
 * transformation's name can then be used in `columns`, `group_by` and `order_by`; a name equal to a
 * row field's replaces that field there (so `{name: "spend_date", expr: "date_trunc", args:
 * ["month", "spend_date"]}` returns and groups spend_date by month). `where` always sees the raw
 * row fields.
 *
 * | expr       | args                    | result                                   |
 * |------------|-------------------------|------------------------------------------|
 * | date_trunc | [unit, datetime field]  | the date-time truncated to hour, day, week, month, quarter or year |
 * | lower      | [string field]          | lower case                               |
 * | upper      | [string field]          | upper case                               |
 * | json_key   | [json field, key]       | the key's value as a string (null when absent) |
 * | coalesce   | [field, fallback]       | the field, or the fallback (a value of the field's type, written as a string) when it is null |
 */
export interface TransformationRequest {
  name: string;
  expr: string;
  args?: readonly string[] | null;
}

export const DATE_TRUNC_UNITS = ['hour', 'day', 'week', 'month', 'quarter', 'year'] as const;
export const TRANSFORMATION_EXPRS = ['date_trunc', 'lower', 'upper', 'json_key', 'coalesce'] as const;

const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** A transformation of a request: its result type and its SQL over the row fields. */
export interface Transformation {
  type: FieldType;
  sql: Sql;
}

/**
 * The transformations of a request, by name, as row-level fields of a statement whose tenant value is
 * `tenant`. All are checked at once; only those the statement uses end up in it.
 */
export function parseTransformations(
  ds: Dataset,
  list: readonly TransformationRequest[] | null | undefined,
  tenant: Sql,
): Map<string, Transformation> {
  const out = new Map<string, Transformation>();
  (list ?? []).forEach((t, i) => {
    const path = `$.column_transformations[${i}]`;
    checkName(ds, t, i, out);
    out.set(t.name, transformation({ ds, t, path, tenant }));
  });
  return out;
}

function checkName(ds: Dataset, t: TransformationRequest, i: number, defined: Map<string, Transformation>): void {
  const path = `$.column_transformations[${i}].name`;
  if (typeof t?.name !== 'string' || !NAME.test(t.name))
    throw invalid(
      `column_transformations[${i}].name must be an identifier (letters, digits, _), got ${JSON.stringify(t?.name)}`,
      path,
    );
  if (defined.has(t.name)) throw invalid(`column transformation "${t.name}" is defined twice`, path);
  if (ds.aggregates?.[t.name])
    throw invalid(`column transformation "${t.name}" has the name of an aggregate of ${ds.name}`, path);
}

/** What reading one transformation request needs. */
interface Request {
  ds: Dataset;
  t: TransformationRequest;
  path: string;
  tenant: Sql;
}

function transformation(r: Request): Transformation {
  switch (r.t.expr) {
    case 'date_trunc':
      return dateTrunc(r);
    case 'lower':
    case 'upper':
      arity(r, 1, 'field');
      return {
        sql: sql`${sql.text(r.t.expr === 'lower' ? 'lower' : 'upper')}(${field(r, 0, ['string'])})`,
        type: 'string',
      };
    case 'json_key':
      arity(r, 2, 'field, key');
      return {
        sql: sql`(${field(r, 0, ['json'])} ->> ${slot(args(r)[1], `${r.path}.args[1]`)}::text)`,
        type: 'string',
      };
    case 'coalesce':
      return coalesce(r);
    default:
      throw unknownName('column transformation expr', r.t.expr, TRANSFORMATION_EXPRS, `${r.path}.expr`);
  }
}

const args = (r: Request): readonly string[] => r.t.args ?? [];

function arity(r: Request, n: number, shape: string): void {
  const got = args(r).length;
  if (got !== n)
    throw invalid(`${r.t.expr} takes ${n} argument${n > 1 ? 's' : ''} (${shape}), got ${got}`, `${r.path}.args`);
}

/** Argument `i`, a row field of one of `types`, as its SQL. */
function field(r: Request, i: number, types: FieldType[]): Sql {
  return definitionSql(rowField(r, i, types).sql, r.tenant);
}

function rowField(r: Request, i: number, types: FieldType[]): Field {
  const { ds, t, path } = r;
  const name = args(r)[i];
  const f = ds.fields[name];
  if (!f)
    throw unknownName(
      `field for ${t.expr}`,
      name,
      Object.keys(ds.fields).filter((n) => types.includes(ds.fields[n].type)),
      `${path}.args[${i}]`,
    );
  if (!types.includes(f.type))
    throw invalid(`${t.expr} needs a ${types.join(' or ')} field; ${name} is ${f.type}`, `${path}.args[${i}]`);
  return f;
}

function dateTrunc(r: Request): Transformation {
  arity(r, 2, 'unit, field');
  const unit = DATE_TRUNC_UNITS.find((u) => u === args(r)[0]);
  if (!unit) throw unknownName('date_trunc unit', args(r)[0], DATE_TRUNC_UNITS, `${r.path}.args[0]`);
  // The unit is one of the fixed list above, so its text (ours, not the request's) is written into the SQL.
  return { sql: sql`date_trunc(${sql.text(`'${unit}'`)}, ${field(r, 1, ['datetime'])})`, type: 'datetime' };
}

function coalesce(r: Request): Transformation {
  arity(r, 2, 'field, fallback');
  const f = rowField(r, 0, ['string', 'float', 'int', 'boolean', 'datetime', 'json']);
  const raw = args(r)[1];
  let value: unknown = raw;
  if (f.type === 'float' || f.type === 'int') value = raw.trim() === '' ? NaN : Number(raw);
  if (f.type === 'boolean') value = raw === 'true' ? true : raw === 'false' ? false : raw;
  const fallback = boundValue(f.type, value, `${r.path}.args[1]`);
  return { sql: sql`coalesce(${definitionSql(f.sql, r.tenant)}, ${fallback})`, type: f.type };
}
