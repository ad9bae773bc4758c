import { RequestError } from '../../core/errors';
import type { ValueSource } from '../plan/ir';
import type { Param } from '../../core/db/database';
import { arrayLiteral, scalarText } from '../../core/db/sql';
import type { OutputStatement } from './compile';
import type { ParamSlot } from '../sql/writer';
import type { Session } from '../../core/session';
import { fillJsonTemplate } from '../schema/json-literal';
import { geoJsonError } from '../schema/geojson';

function valueAt(root: unknown, path: readonly (string | number)[]): unknown {
  let v = root;
  for (const p of path) {
    if (v === null || v === undefined) return undefined;
    v = (v as Record<string | number, unknown>)[p];
  }
  return v;
}

export function resolveSource(s: ValueSource, vars: Record<string, unknown>, session: Session): unknown {
  switch (s.from) {
    case 'literal':
      return s.value;
    case 'variable':
      return valueAt(vars[s.name], s.path);
    case 'session': {
      const v = session.vars[s.name];
      // Hasura's code for it: not-found.
      if (v === undefined) throw new RequestError('not-found', `missing session variable: "${s.name}"`, '$', 400);
      return v;
    }
    case 'list':
      return s.items.map((i) => resolveSource(i, vars, session));
    case 'json':
      return filledJson(s, vars);
  }
}

/** A JSON literal with variables, filled; a GeoJSON one must still be a geometry once filled. */
function filledJson(s: Extract<ValueSource, { from: 'json' }>, vars: Record<string, unknown>): unknown {
  const value = fillJsonTemplate(s.template, vars, (name) => {
    throw new RequestError(
      'validation-failed',
      `the variable $${name} inside a JSON literal is not provided`,
      '$',
      400,
    );
  });
  const why = s.geo ? geoJsonError(value) : undefined;
  if (why) throw new RequestError('validation-failed', `invalid GeoJSON value: ${why}`, '$', 400);
  return value;
}

/**
 * A value as the text PostgreSQL parses for the placeholder's cast. JSON values are serialised, so a
 * jsonb string stays a JSON string; a session variable bound as an array is taken as an array literal.
 */
export function toParam(value: unknown, slot: ParamSlot): Param {
  if (value === null || value === undefined) return null;
  const json = slot.sqlType === 'jsonb' || slot.sqlType === 'json';
  if (slot.array) {
    if (typeof value === 'string') return value;
    const items = Array.isArray(value) ? value : [value];
    return arrayLiteral(json ? items.map((i) => JSON.stringify(i)) : items);
  }
  return json ? JSON.stringify(value) : scalarText(value);
}

/** A source written in the document itself: a literal, or a list of them. */
const isConstant = (s: ValueSource): boolean =>
  s.from === 'literal' || (s.from === 'list' && s.items.every(isConstant));

/**
 * Each slot's text when its source is constant (null: it is not): a literal list such as
 * `_in: ["Open", "Assigned"]` was written as an array literal on every request.
 */
const constants = new WeakMap<ParamSlot, { param: Param } | null>();

function constantParam(slot: ParamSlot, session: Session): { param: Param } | null {
  let c = constants.get(slot);
  if (c === undefined) {
    c = isConstant(slot.source) ? { param: slotParam(slot, {}, session) } : null;
    constants.set(slot, c);
  }
  return c;
}

/** A slot's text: its value's, or for a slot of rows (writer.ts bindRows) the JSON of its rows' texts. */
function slotParam(slot: ParamSlot, vars: Record<string, unknown>, session: Session): Param {
  if (!slot.rows) return toParam(resolveSource(slot.source, vars, session), slot);
  return JSON.stringify(slot.rows.map((row) => bindParams(row, vars, session)));
}

export function bindParams(slots: readonly ParamSlot[], vars: Record<string, unknown>, session: Session): Param[] {
  return slots.map((s) => {
    const constant = constantParam(s, session);
    return constant ? constant.param : slotParam(s, vars, session);
  });
}

/**
 * The parameters of a mutation's output statement: the changed rows (the JSON text the first
 * statement returned) at their placeholder, the plan's values at the others.
 */
export function bindOutputParams(
  output: OutputStatement,
  rows: unknown,
  vars: Record<string, unknown>,
  session: Session,
): Param[] {
  const params = bindParams(output.params, vars, session);
  params.splice(output.rowsParam - 1, 0, rows == null ? null : scalarText(rows));
  return params;
}
