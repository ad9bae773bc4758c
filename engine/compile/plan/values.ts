import {
  getNamedType,
  type GraphQLEnumType,
  type GraphQLInputField,
  type GraphQLInputObjectType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  Kind,
  valueFromAST,
  type GraphQLInputType,
  type GraphQLScalarType,
  type ValueNode,
} from 'graphql';
import { isEnumTableType } from '../schema/scalars';
import { hasVariable, jsonTemplate } from '../schema/json-literal';
import { isColumnOperator } from '../model/operators';
import type { ValueSource } from './ir';

/**
 * An argument value as the planner sees it: structure (objects, lists, enum values) resolved, scalar
 * leaves left as sources to be bound when the plan runs. Structure that comes from a variable is part
 * of the plan's cache key (see `variableShape`), so the SQL text never depends on a scalar's value.
 */
export type Arg =
  | { kind: 'null' }
  | { kind: 'leaf'; source: ValueSource }
  | { kind: 'enum'; value: unknown }
  | { kind: 'list'; items: Arg[] }
  | { kind: 'object'; fields: Map<string, Arg> };

export type Variables = Record<string, unknown>;

/**
 * A value bound as a parameter: a scalar, or a value of an enum table's enum (text in the database, so
 * the SQL is the same whatever the value).
 */
const isBound = (type: unknown): boolean => isScalarType(type) || isEnumTableType(type);

/** A list whose elements are bound values is bound whole, as one array parameter. */
function isScalarList(type: GraphQLInputType): boolean {
  const t = isNonNullType(type) ? type.ofType : type;
  return isListType(t) && isBound(getNamedType(t));
}

function fromRuntime(value: unknown, type: GraphQLInputType, name: string, path: (string | number)[]): Arg {
  if (isNonNullType(type)) return fromRuntime(value, type.ofType, name, path);
  // A scalar stays a parameter even when this request's value is null: the plan is shared by every
  // value of the variable, so null must mean the same thing in all of them (SQL NULL).
  if (isBound(type) || isScalarList(type)) return { kind: 'leaf', source: { from: 'variable', name, path } };
  if (value === null || value === undefined) return { kind: 'null' };
  if (isListType(type)) {
    const items = Array.isArray(value) ? value : [value];
    return { kind: 'list', items: items.map((v, i) => fromRuntime(v, type.ofType, name, [...path, i])) };
  }
  if (isEnumType(type)) return { kind: 'enum', value };
  const fields = new Map<string, Arg>();
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const f = (type as GraphQLInputObjectType).getFields()[k];
    if (f) fields.set(k, fromRuntime(v, f.type, name, [...path, k]));
  }
  return { kind: 'object', fields };
}

/**
 * Resolves an argument's AST (already validated against the schema) against coerced variables.
 * Returns undefined for a variable that was not provided, which counts as an absent argument.
 */
export function resolveArg(node: ValueNode, type: GraphQLInputType, vars: Variables): Arg | undefined {
  if (node.kind === Kind.VARIABLE) {
    const name = node.name.value;
    if (!(name in vars)) return undefined;
    return fromRuntime(vars[name], type, name, []);
  }
  if (node.kind === Kind.NULL) return { kind: 'null' };
  if (isNonNullType(type)) return resolveArg(node, type.ofType, vars);
  if (isScalarList(type) || isBound(type)) return scalarLeaf(node, type, vars);
  if (isListType(type)) {
    const items = node.kind === Kind.LIST ? node.values : [node];
    return { kind: 'list', items: items.map((n) => resolveArg(n, type.ofType, vars) ?? { kind: 'null' }) };
  }
  if (isEnumType(type)) return { kind: 'enum', value: (type as GraphQLEnumType).parseLiteral(node, vars) };
  if (node.kind !== Kind.OBJECT) return { kind: 'null' };
  const fields = new Map<string, Arg>();
  const defs = (type as GraphQLInputObjectType).getFields();
  for (const f of node.fields) {
    const def = defs[f.name.value];
    const arg = def && resolveArg(f.value, def.type, vars);
    if (arg) fields.set(f.name.value, arg);
  }
  return { kind: 'object', fields };
}

/** A scalar, or a list of scalars, that may hold variables among literals. */
function scalarLeaf(node: ValueNode, type: GraphQLInputType, vars: Variables): Arg {
  if (isJsonScalar(type)) return { kind: 'leaf', source: jsonSource(node, type, vars) };
  if (node.kind === Kind.LIST && !node.values.some(hasVariable)) {
    return { kind: 'leaf', source: { from: 'literal', value: valueFromAST(node, type) } };
  }
  if (node.kind === Kind.LIST) {
    const itemType = (isNonNullType(type) ? type.ofType : type) as { ofType: GraphQLInputType };
    const items = node.values.map((n): ValueSource => {
      if (n.kind === Kind.VARIABLE) return { from: 'variable', name: n.name.value, path: [] };
      if (isJsonScalar(itemType.ofType)) return jsonSource(n, itemType.ofType, vars);
      return { from: 'literal', value: valueFromAST(n, itemType.ofType, vars) };
    });
    return { kind: 'leaf', source: { from: 'list', items } };
  }
  return { kind: 'leaf', source: { from: 'literal', value: valueFromAST(node, type, vars) } };
}

/** Scalars whose GraphQL literals are JSON: json, jsonb, and GeoJSON (geometry, geography). */
const JSON_SCALARS = ['json', 'jsonb', 'geometry', 'geography'];
const isJsonScalar = (type: GraphQLInputType): boolean => {
  const t = isNonNullType(type) ? type.ofType : type;
  return isScalarType(t) && JSON_SCALARS.includes(t.name);
};

/**
 * A JSON literal: its value (checked by its scalar) when it is constant, else a template whose variables
 * are filled when the plan runs (a variable's value must not be cached in the plan).
 */
function jsonSource(node: ValueNode, type: GraphQLInputType, vars: Variables): ValueSource {
  const scalar = getNamedType(type) as GraphQLScalarType;
  if (!hasVariable(node)) return { from: 'literal', value: scalar.parseLiteral(node, vars) };
  const geo = scalar.name === 'geometry' || scalar.name === 'geography';
  return { from: 'json', template: jsonTemplate(node), ...(geo ? { geo } : {}) };
}

type Shaper = (value: unknown) => string;

/** Each input type's shaper, made on first use (the schema's types live as long as its role's schema). */
const shapers = new WeakMap<GraphQLInputType, Shaper>();

/**
 * The part of a variable's value that changes the SQL: object keys, list lengths, enum values,
 * booleans (they may drive @include/@skip) and the column names of column operators (`_ceq`); other
 * scalars stand as `?`. Plans are cached per shape, so every request with a structured variable (an
 * insert's objects, a filter) computes one: each type's shaper is made once and reads only the keys
 * given, rather than asking the type what it is at every value.
 */
export function variableShape(value: unknown, type: GraphQLInputType): string {
  return shaperOf(type)(value);
}

/**
 * The shape of a list variable's items without their count (`*{name:?,status:?}`), when it has two or
 * more and all have one shape; undefined otherwise. A plan that reads such a list only whole (an
 * insert's `objects: $objects`) serves every count, so the engine looks it up by this shape first.
 * The value is a coerced one (coerce-variables.ts), whose objects have no inherited keys.
 */
export function countFreeShape(value: unknown, type: GraphQLInputType): string | undefined {
  const list = isNonNullType(type) ? type.ofType : type;
  if (!isListType(list) || isScalarList(list) || !Array.isArray(value) || value.length < 2) return undefined;
  const same = comparerOf(list.ofType);
  for (let i = 1; i < value.length; i++) if (!same(value[0], value[i])) return undefined;
  return `*${shaperOf(list.ofType)(value[0])}`;
}

/** Whether two values of a type have one shape: as their shapes' texts are equal, without writing them. */
type Comparer = (a: unknown, b: unknown) => boolean;

const comparers = new WeakMap<GraphQLInputType, Comparer>();

const comparerOf = (type: GraphQLInputType): Comparer => perType(comparers, type, makeComparer);

/** What `made` holds for `type`, made the first time it is asked for (shapers, comparers, coercers). */
export function perType<T>(
  made: WeakMap<GraphQLInputType, T>,
  type: GraphQLInputType,
  make: (t: GraphQLInputType) => T,
): T {
  let m = made.get(type);
  if (m === undefined) {
    m = make(type);
    made.set(type, m);
  }
  return m;
}

const isNull = (v: unknown) => v === null || v === undefined;

/** Each case as makeShaper's: what it writes the same, this finds the same. */
function makeComparer(type: GraphQLInputType): Comparer {
  const orNull =
    (f: Comparer): Comparer =>
    (a, b) =>
      isNull(a) || isNull(b) ? isNull(a) && isNull(b) : f(a, b);
  if (isNonNullType(type)) {
    let inner: Comparer | undefined;
    return orNull((a, b) => (inner ??= comparerOf(type.ofType))(a, b));
  }
  if (isBound(type))
    return orNull(isScalarType(type) && type.name === 'Boolean' ? (a, b) => String(a) === String(b) : () => true);
  if (isScalarList(type)) return orNull(() => true);
  if (isListType(type)) {
    let item: Comparer | undefined;
    return orNull((a, b) => {
      item ??= comparerOf(type.ofType);
      if (!Array.isArray(a) || !Array.isArray(b)) return !Array.isArray(a) && !Array.isArray(b) && item(a, b);
      if (a.length !== b.length) return false;
      for (let i = 0; i < a.length; i++) if (!item(a[i], b[i])) return false;
      return true;
    });
  }
  if (isEnumType(type)) return orNull((a, b) => a === b || JSON.stringify(a) === JSON.stringify(b));
  if (isInputObjectType(type)) return orNull(objectComparer(type));
  return orNull(() => true);
}

/** The same keys in the same order, each holding values of one shape (objectShaper's cases). */
function objectComparer(type: GraphQLInputObjectType): Comparer {
  const byKey = keyCache(type, (field, operand): Comparer => {
    const inner = field ? comparerOf(field.type) : () => true;
    if (!operand) return inner;
    return (a, b) => {
      const x = JSON.stringify(a);
      const y = JSON.stringify(b);
      return x === undefined && y === undefined ? inner(a, b) : x === y;
    };
  });
  // Coerced values' keys are their own (their prototype has none), and in the type's order, whoever
  // coerced them (coerce-variables.ts, graphql-js): two with the same keys have them in the same order.
  // So `for in` compares them, without an array of keys for each item.
  return (a, b) => {
    const x = a as Record<string, unknown>;
    const y = b as Record<string, unknown>;
    let n = 0;
    for (const k in y) {
      if (!(k in x) || !byKey(k)(x[k], y[k])) return false;
      n++;
    }
    for (const _ in x) if (--n < 0) return false;
    return n === 0;
  };
}

/**
 * Per key of an input object type, what `make` makes of its field (undefined when the type has no
 * such field) and of whether it is a column operator (`_ceq`), whose operand is a column name and so
 * part of the SQL text: made once per key the type knows. Another key (coercion lets none through)
 * gets what `make` makes of nothing, each time, so that strange keys sent leave nothing behind.
 */
function keyCache<T>(
  type: GraphQLInputObjectType,
  make: (field: GraphQLInputField | undefined, operand: boolean) => T,
): (key: string) => T {
  const made = new Map<string, T>();
  return (key) => {
    let m = made.get(key);
    if (m === undefined) {
      const field = type.getFields()[key] as GraphQLInputField | undefined;
      const operand = isColumnOperator(key);
      m = make(field, operand);
      if (field || operand) made.set(key, m);
    }
    return m;
  };
}

const shaperOf = (type: GraphQLInputType): Shaper => perType(shapers, type, makeShaper);

function makeShaper(type: GraphQLInputType): Shaper {
  if (isNonNullType(type)) {
    // Made on first call: input types may refer to themselves (a bool_exp's _and).
    let inner: Shaper | undefined;
    return (v) => (v === null || v === undefined ? 'n' : (inner ??= shaperOf(type.ofType))(v));
  }
  const orNull =
    (f: Shaper): Shaper =>
    (v) =>
      v === null || v === undefined ? 'n' : f(v);
  if (isBound(type)) return orNull(isScalarType(type) && type.name === 'Boolean' ? String : () => '?');
  if (isScalarList(type)) return orNull(() => '?');
  if (isListType(type)) {
    let item: Shaper | undefined;
    return orNull((v) => {
      item ??= shaperOf(type.ofType);
      if (!Array.isArray(v)) return `[${item(v)}]`;
      let out = '[';
      for (let i = 0; i < v.length; i++) out += (i ? ',' : '') + item(v[i]);
      return `${out}]`;
    });
  }
  if (isEnumType(type)) return orNull((v) => JSON.stringify(v));
  if (isInputObjectType(type)) return orNull(objectShaper(type));
  return orNull(() => '?');
}

/**
 * `{key:shape,...}` in the value's own key order; a key the type does not have stands as `?`, a
 * column operator's operand as its JSON.
 */
function objectShaper(type: GraphQLInputObjectType): Shaper {
  const byKey = keyCache(type, (field, operand): Shaper => {
    const inner = field ? shaperOf(field.type) : () => '?';
    return operand ? (v) => JSON.stringify(v) ?? inner(v) : inner;
  });
  return (value) => {
    const object = value as Record<string, unknown>;
    let out = '{';
    let first = true;
    for (const k of Object.keys(object)) {
      out += `${first ? '' : ','}${k}:${byKey(k)(object[k])}`;
      first = false;
    }
    return `${out}}`;
  };
}
