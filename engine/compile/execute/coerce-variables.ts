import {
  getVariableValues,
  isInputObjectType,
  isInputType,
  isListType,
  isNonNullType,
  typeFromAST,
  type GraphQLError,
  type GraphQLInputField,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLLeafType,
  type GraphQLSchema,
  type VariableDefinitionNode,
} from 'graphql';
import { perType } from '../plan/values';

/**
 * A request's variables coerced to their types, with the same result as graphql-js's getVariableValues.
 * That function visits every field an input object type has for each object given (a bool_exp type
 * has one per column and relationship), and costs more than the rest of planning a request with input
 * objects. Here each input type gets a coercer, made once, that visits only the keys given. Anything
 * it does not take as plainly valid (an error, a variable's default, a oneOf type) goes to
 * getVariableValues, which says what is wrong in its own words.
 */
export function coerceVariables(
  schema: GraphQLSchema,
  definitions: readonly VariableDefinitionNode[],
  inputs: Record<string, unknown>,
): { coerced: Record<string, unknown>; errors?: undefined } | { errors: readonly GraphQLError[] } {
  return fastCoerce(schema, definitions, inputs) ?? getVariableValues(schema, definitions, inputs);
}

/** The value graphql-js would refuse or treat otherwise: the request goes to getVariableValues. */
const OTHER = Symbol('other');
type Coercer = (value: unknown) => unknown;

/** The coerced variables when all are plainly valid; undefined when getVariableValues must say more. */
export function fastCoerce(
  schema: GraphQLSchema,
  definitions: readonly VariableDefinitionNode[],
  inputs: Record<string, unknown>,
): { coerced: Record<string, unknown> } | undefined {
  const coerced: Record<string, unknown> = {};
  for (const def of definitions) {
    const coerce = variableCoercer(schema, def);
    if (!coerce) return undefined;
    const name = def.variable.name.value;
    if (!Object.hasOwn(inputs, name)) {
      if (def.defaultValue || def.type.kind === 'NonNullType') return undefined;
      continue;
    }
    const value = coerce(inputs[name]);
    if (value === OTHER) return undefined;
    coerced[name] = value;
  }
  return { coerced };
}

/** Per variable definition (documents are cached per role), the coercer of its type in that schema. */
const byDefinition = new WeakMap<VariableDefinitionNode, { schema: GraphQLSchema; coerce?: Coercer }>();

function variableCoercer(schema: GraphQLSchema, def: VariableDefinitionNode): Coercer | undefined {
  let known = byDefinition.get(def);
  if (!known || known.schema !== schema) {
    // typeFromAST wraps the named type anew on each call: the coercer is kept by definition instead.
    const type = typeFromAST(schema, def.type);
    known = { schema, coerce: type && isInputType(type) ? coercerOf(type) : undefined };
    byDefinition.set(def, known);
  }
  return known.coerce;
}

/** Coercers by type object; the types inside input objects are made once, with the schema. */
const coercers = new WeakMap<GraphQLInputType, Coercer>();

/**
 * Input types may refer to themselves (a bool_exp's _and), always through an input object: an
 * object's coercer finds its fields' on its first call, by which time its own is kept here. So no
 * coercer needs a wrapper that finds its own on first use, which was one more call for each value.
 */
const coercerOf = (type: GraphQLInputType): Coercer => perType(coercers, type, makeCoercer);

function makeCoercer(type: GraphQLInputType): Coercer {
  if (isNonNullType(type)) {
    const inner = coercerOf(type.ofType);
    return (value) => (value === null || value === undefined ? OTHER : inner(value));
  }
  if (isListType(type)) return listCoercer(coercerOf(type.ofType));
  if (isInputObjectType(type)) return type.isOneOf ? () => OTHER : objectCoercer(type);
  return leafCoercer(type);
}

/** A list, or (as GraphQL says) one value taken as a list of one. Variables are JSON: arrays are the lists. */
function listCoercer(item: Coercer): Coercer {
  return (value) => {
    if (value === null || value === undefined) return null;
    if (!Array.isArray(value)) {
      const one = item(value);
      return one === OTHER ? OTHER : [one];
    }
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const v = item(value[i]);
      if (v === OTHER) return OTHER;
      out[i] = v;
    }
    return out;
  };
}

function leafCoercer(type: GraphQLLeafType): Coercer {
  return (value) => {
    if (value === null || value === undefined) return null;
    try {
      const parsed: unknown = type.parseValue(value);
      return parsed === undefined ? OTHER : parsed;
    } catch {
      return OTHER;
    }
  };
}

/**
 * An input object: the keys given, each a field; the fields with defaults filled in; every required
 * field given. The result has its keys in the order of the type's fields, as graphql-js writes them.
 *
 * The positions of the keys go into an array kept by the coercer, and the keys are read with for-in:
 * Object.keys and a new positions array were a quarter of what coercing an insert's objects allocated.
 * A type that holds itself (a bool_exp's `_and`) calls its own coercer again while its array is in
 * use: that call gets an array of its own.
 */
function objectCoercer(type: GraphQLInputObjectType): Coercer {
  const fields = Object.values(type.getFields());
  const position = new Map(fields.map((f, i) => [f.name, i]));
  const defaulted = fields.flatMap((f, i) => (f.defaultValue !== undefined ? [i] : []));
  const required = fields.filter((f) => f.defaultValue === undefined && isNonNullType(f.type)).map((f) => f.name);
  let coerce: Coercer[] | undefined;
  // No key twice, and none that is not a field: never more positions than fields.
  const kept = new Int32Array(fields.length);
  let inUse = false;
  return (value) => {
    if (value === null || value === undefined) return null;
    if (typeof value !== 'object' || Array.isArray(value)) return OTHER;
    const given = value as Record<string, unknown>;
    const at = inUse ? new Int32Array(fields.length) : kept;
    let n = 0;
    for (const key in given) {
      const i = position.get(key);
      // An inherited key (for-in reads those too) is no field's either.
      if (i === undefined || !Object.hasOwn(given, key)) return OTHER;
      at[n++] = i;
    }
    for (const name of required) if (given[name] === undefined) return OTHER;
    for (const i of defaulted) if (given[fields[i].name] === undefined) at[n++] = i;
    coerce ??= fields.map((f) => coercerOf(f.type));
    const mine = at === kept;
    if (mine) inUse = true;
    try {
      return build(fields, coerce, given, ascending(at, n), n);
    } finally {
      if (mine) inUse = false;
    }
  };
}

/**
 * The first `n` positions in ascending order, in place. An object's few keys are sorted by insertion:
 * the comparator sort allocated a work array for each object (12% of what an insert of ten objects
 * allocated).
 */
function ascending(at: Int32Array, n: number): Int32Array {
  if (n > 16) {
    at.subarray(0, n).sort();
    return at;
  }
  for (let i = 1; i < n; i++) {
    const v = at[i];
    let j = i - 1;
    for (; j >= 0 && at[j] > v; j--) at[j + 1] = at[j];
    at[j + 1] = v;
  }
  return at;
}

/**
 * The prototype of coerced objects: it has no properties and no prototype, so a coerced object inherits
 * no key (`toString`, `__proto__`), as graphql-js's objects made by Object.create(null). Those start as
 * hash tables in V8; objects made from this prototype keep fast properties, and are a third the size.
 */
const NO_KEYS: object = Object.freeze(Object.create(null) as object);

/** The coerced object of the fields at `at`'s first `n` (in order): a given value coerced, else the field's default. */
function build(
  fields: GraphQLInputField[],
  coerce: Coercer[],
  given: Record<string, unknown>,
  at: Int32Array,
  n: number,
): unknown {
  const out = Object.create(NO_KEYS) as Record<string, unknown>;
  for (let k = 0; k < n; k++) {
    const f = fields[at[k]];
    const v = given[f.name];
    const c = v === undefined ? f.defaultValue : coerce[at[k]](v);
    if (c === OTHER) return OTHER;
    out[f.name] = c;
  }
  return out;
}
