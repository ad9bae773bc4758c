import { INSIDE, paramText, renderWith, sql, Sql, type Param, type SqlValue } from '../api';

/**
 * Where each bound value of an analytic statement comes from, so that a statement built once can be
 * bound again for another request of the same shape (statements.ts) without being built again.
 *
 * The builder binds every value through `slot`: a fragment of the one value, remembered with the
 * request path it was read at (`$.where.date._gte`, `$.limit`, TENANT) and how that path's value
 * becomes the bound one (the same check and conversion the builder ran, so that a bad value fails
 * alike). `templateOf` then writes the statement's text with `render`'s own writer and notes, for each
 * placeholder, the slot behind it. A value bound without a slot makes the statement uncacheable, so
 * a value source added later and not told here costs speed, never a wrong answer.
 */
export type Convert = (value: unknown) => SqlValue;

interface SlotOf {
  path: string;
  convert: Convert;
}

const SLOTS = new WeakMap<Sql, SlotOf>();

const same: Convert = (v) => v as SqlValue;

/** The path of the session's tenant among a template's sources. */
export const TENANT = '$tenant';

/** A bound value read at `path` of the request (or TENANT): one placeholder, as `${value}` would be. */
export function slot(value: SqlValue, path: string, convert: Convert = same): Sql {
  const s = sql`${value}`;
  SLOTS.set(s, { path, convert });
  return s;
}

/** A placeholder's value: the request value at `source` (leaves, see statements.ts) converted, or a constant. */
export type TemplateSlot = { source: number; convert: Convert } | { value: Param };

export interface Template {
  text: string;
  slots: TemplateSlot[];
}

/**
 * The text of `fragment` (the same as `render`'s) and its placeholders' sources: `sources` gives a
 * request path's index among the values a request of this shape is read into; paths under
 * `constantUnder` hold the same values in every request of the shape (they are part of its key).
 * Undefined when a placeholder's source is unknown.
 */
export function templateOf(fragment: Sql, sources: Map<string, number>, constantUnder: string): Template | undefined {
  let known = true;
  const unknown = (): TemplateSlot => {
    known = false;
    return { value: null };
  };
  const { text, params: slots } = renderWith(fragment, (value): TemplateSlot | typeof INSIDE => {
    if (!(value instanceof Sql)) return unknown();
    const s = SLOTS.get(value);
    if (!s) return INSIDE;
    const source = sources.get(s.path);
    if (source !== undefined && source >= 0) return { source, convert: s.convert };
    if (s.path.startsWith(constantUnder)) return { value: paramText(value.values[0] as Exclude<SqlValue, Sql>) };
    return unknown();
  });
  return known ? { text, slots } : undefined;
}

/** The parameters of a template for a request whose values (read as the template's request was) are `values`. */
export function bindTemplate(template: Template, values: readonly unknown[]): Param[] {
  const params: Param[] = new Array<Param>(template.slots.length);
  for (let i = 0; i < params.length; i++) {
    const s = template.slots[i];
    params[i] = 'value' in s ? s.value : paramText(s.convert(values[s.source]) as Exclude<SqlValue, Sql>);
  }
  return params;
}
