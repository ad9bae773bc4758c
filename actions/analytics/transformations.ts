import type { Dataset, Field, FieldType } from './dataset';
import { invalid, unknownName } from './errors';
import { Params } from './params';
import { placeholder, sqlValue } from './values';

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

/**
 * The transformations of a request, by name, as row-level fields. All are checked at once; each
 * binds its parameters when first used (`sql()`), so that unused ones add none to the statement.
 */
export function parseTransformations(
  ds: Dataset,
  list: readonly TransformationRequest[] | null | undefined,
  params: Params,
): Map<string, LazyField> {
  const out = new Map<string, LazyField>();
  (list ?? []).forEach((t, i) => {
    const path = `$.column_transformations[${i}]`;
    if (typeof t?.name !== 'string' || !NAME.test(t.name))
      throw invalid(
        `column_transformations[${i}].name must be an identifier (letters, digits, _), got ${JSON.stringify(t?.name)}`,
        `${path}.name`,
      );
    if (out.has(t.name)) throw invalid(`column transformation "${t.name}" is defined twice`, `${path}.name`);
    if (ds.aggregates?.[t.name])
      throw invalid(`column transformation "${t.name}" has the name of an aggregate of ${ds.name}`, `${path}.name`);
    // A first pass on a scratch parameter list checks the request; the real binding waits for a use.
    const checked = transformation(ds, t, path, new Params());
    let sql: string | undefined;
    out.set(t.name, { type: checked.type, sql: () => (sql ??= transformation(ds, t, path, params).sql) });
  });
  return out;
}

export interface LazyField {
  type: FieldType;
  sql(): string;
}

function transformation(ds: Dataset, t: TransformationRequest, path: string, params: Params): Field {
  const args = t.args ?? [];
  const arity = (n: number, shape: string) => {
    if (args.length !== n)
      throw invalid(`${t.expr} takes ${n} argument${n > 1 ? 's' : ''} (${shape}), got ${args.length}`, `${path}.args`);
  };
  const field = (i: number, types: FieldType[]): Field => {
    const name = args[i];
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
  };
  const bind = (text: string, cast: string) => params.bind(text, cast);
  switch (t.expr) {
    case 'date_trunc': {
      arity(2, 'unit, field');
      const unit = args[0];
      if (!(DATE_TRUNC_UNITS as readonly string[]).includes(unit))
        throw unknownName('date_trunc unit', unit, DATE_TRUNC_UNITS, `${path}.args[0]`);
      // The unit comes from the fixed list above, so it is written into the SQL text.
      return { sql: `date_trunc('${unit}', ${field(1, ['datetime']).sql})`, type: 'datetime' };
    }
    case 'lower':
    case 'upper':
      arity(1, 'field');
      return { sql: `${t.expr}(${field(0, ['string']).sql})`, type: 'string' };
    case 'json_key': {
      arity(2, 'field, key');
      const f = field(0, ['json']);
      return { sql: `(${f.sql} ->> ${bind(args[1], 'text')})`, type: 'string' };
    }
    case 'coalesce': {
      arity(2, 'field, fallback');
      const f = field(0, ['string', 'float', 'int', 'boolean', 'datetime', 'json']);
      const raw = args[1];
      let value: unknown = raw;
      if (f.type === 'float' || f.type === 'int') value = raw.trim() === '' ? NaN : Number(raw);
      if (f.type === 'boolean') value = raw === 'true' ? true : raw === 'false' ? false : raw;
      return {
        sql: `coalesce(${f.sql}, ${placeholder(sqlValue(f.type, value, `${path}.args[1]`), bind)})`,
        type: f.type,
      };
    }
    default:
      throw unknownName('column transformation expr', t.expr, TRANSFORMATION_EXPRS, `${path}.expr`);
  }
}
