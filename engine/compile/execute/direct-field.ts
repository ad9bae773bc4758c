import {
  BREAK,
  getArgumentValues,
  getVariableValues,
  isAbstractType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  locatedError,
  visit,
  type ASTNode,
  type DocumentNode,
  type ExecutionResult,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLFieldResolver,
  type GraphQLLeafType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { Variables } from '../plan/values';
import { JsonRows } from '../../core/json-rows';
import { answersAsIs } from '../schema/scalars';

/**
 * One action field run without graphql-js's `execute`, with the same answer: its arguments read by
 * graphql-js's own getArgumentValues, its resolver called with the same info, and its value completed
 * as graphql-js completes it (non-null, lists, objects through the default resolver, leaves through
 * their type's `serialize`), errors located at the same path. graphql-js walked every row and field
 * of an analytic operation's answer with a resolver, a path and a promise check each, a sixth of the
 * engine's CPU on the `_v2` workloads.
 *
 * Only the simple documents, decided once per document: one root field with a resolver (an action),
 * without directives; below it fields only (no fragments, directives, arguments or repeated response
 * keys), of object types whose fields have no resolver of their own, lists and leaves. Anything else
 * goes to graphql-js, as does an answer holding a promise or a function (which graphql-js would
 * resolve or call; no handler answers so).
 */
export interface DirectField {
  schema: GraphQLSchema;
  alias: string;
  node: FieldNode;
  field: GraphQLField<unknown, unknown>;
  parentType: GraphQLObjectType;
  operation: OperationDefinitionNode;
  fragments: Record<string, FragmentDefinitionNode>;
  complete: Completion;
  /** Whether the field's arguments name a variable; when none does, they are read once (argumentsOf). */
  argsNameVariables: boolean;
  /**
   * The arguments that name no variable: the same for every request of the document, so kept from
   * the first, frozen (a handler that changed them would change the next request's).
   */
  keptArgs?: Readonly<Record<string, unknown>>;
}

/** How a value of an output type is completed, for the fields selected. */
type Completion =
  | { kind: 'leaf'; type: GraphQLLeafType }
  | { kind: 'nonNull'; of: Completion; parent: string; field: string }
  | { kind: 'list'; of: Completion; parent: string; field: string }
  | { kind: 'object'; type: GraphQLObjectType; fields: SubField[] };

interface SubField {
  key: string;
  /** The field's name; `__typename` is answered with the type's name. */
  name: string;
  complete?: Completion;
}

const plans = new WeakMap<DocumentNode, DirectField | null>();

/**
 * The direct plan of a document on a schema, or undefined when graphql-js must run it: its root field
 * must be resolved by `resolver`, the engine's action resolver (which answers RESOLVED root values).
 */
export function directField(
  schema: GraphQLSchema,
  document: DocumentNode,
  resolver: GraphQLFieldResolver<unknown, unknown>,
): DirectField | undefined {
  let plan = plans.get(document);
  if (plan === undefined || (plan && plan.schema !== schema)) {
    plan = planOf(schema, document, resolver) ?? null;
    plans.set(document, plan);
  }
  return plan ?? undefined;
}

function planOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  resolver: GraphQLFieldResolver<unknown, unknown>,
): DirectField | undefined {
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const operation = operations[0];
  if (operations.length !== 1 || operation.kind !== Kind.OPERATION_DEFINITION) return undefined;
  const [node, ...more] = operation.selectionSet.selections;
  if (more.length || node?.kind !== Kind.FIELD || node.directives?.length) return undefined;
  const parentType = schema.getRootType(operation.operation);
  const field = parentType?.getFields()[node.name.value];
  if (!parentType || !field || field.resolve !== resolver) return undefined;
  const complete = completionOf(field.type, node.selectionSet, parentType.name, field.name);
  if (!complete) return undefined;
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  const alias = node.alias?.value ?? node.name.value;
  const argsNameVariables = namesVariable(node.arguments ?? []);
  return { schema, alias, node, field, parentType, operation, fragments, complete, argsNameVariables };
}

/** Whether a variable appears anywhere in these AST nodes (arguments, values, lists, objects). */
function namesVariable(nodes: readonly ASTNode[]): boolean {
  let found = false;
  for (const n of nodes)
    visit(n, {
      Variable() {
        found = true;
        return BREAK;
      },
    });
  return found;
}

/** The value frozen through: its objects and arrays too (not typed arrays, which cannot be). */
function frozen<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value) && !ArrayBuffer.isView(value)) {
    for (const v of Object.values(value)) frozen(v);
    Object.freeze(value);
  }
  return value;
}

/** The field's arguments: kept from the first request when they name no variable. */
function argumentsOf(d: DirectField, variableValues: Variables): Record<string, unknown> {
  if (d.argsNameVariables) return getArgumentValues(d.field, d.node, variableValues);
  d.keptArgs ??= frozen(getArgumentValues(d.field, d.node, variableValues));
  return d.keptArgs;
}

function completionOf(
  type: GraphQLOutputType,
  set: SelectionSetNode | undefined,
  parent: string,
  field: string,
): Completion | undefined {
  if (isNonNullType(type)) {
    const of = completionOf(type.ofType, set, parent, field);
    return of && { kind: 'nonNull', of, parent, field };
  }
  if (isListType(type)) {
    const of = completionOf(type.ofType, set, parent, field);
    return of && { kind: 'list', of, parent, field };
  }
  if (isLeafType(type)) return set ? undefined : { kind: 'leaf', type };
  // A type with isTypeOf is checked by graphql-js before its fields are read.
  if (isAbstractType(type) || !isObjectType(type) || type.isTypeOf || !set) return undefined;
  const fields: SubField[] = [];
  const defs = type.getFields();
  for (const s of set.selections) {
    if (s.kind !== Kind.FIELD || s.directives?.length || s.arguments?.length) return undefined;
    const key = s.alias?.value ?? s.name.value;
    if (fields.some((f) => f.key === key)) return undefined;
    if (s.name.value === '__typename') {
      fields.push({ key, name: '__typename' });
      continue;
    }
    const def = defs[s.name.value];
    if (!def || def.resolve) return undefined;
    const complete = completionOf(def.type, s.selectionSet, type.name, def.name);
    if (!complete) return undefined;
    fields.push({ key, name: def.name, complete });
  }
  return { kind: 'object', type, fields };
}

/** A promise or a function in an answer: only graphql-js completes those (it awaits or calls them). */
const NOT_DIRECT = Symbol('not direct');

/** An error raised at a path of the answer, to be located there. */
class FieldError {
  constructor(
    readonly error: unknown,
    readonly path: (string | number)[],
  ) {}
}

/**
 * Runs the field: graphql-js's ExecutionResult, or `{resolved}` when the answer holds what only
 * graphql-js completes (a promise or a function): the handler has run, and must not run again, so
 * the caller hands graphql-js the value it resolved to (actions.ts RESOLVED).
 */
export async function runDirect(
  d: DirectField,
  vars: Variables,
  context: unknown,
): Promise<ExecutionResult | { resolved: unknown }> {
  const defs = d.operation.variableDefinitions ?? [];
  // As execute does: the variables are coerced again against the schema.
  const coerced = defs.length ? getVariableValues(d.schema, defs, vars, { maxErrors: 50 }) : { coerced: vars };
  if (coerced.errors) return { errors: coerced.errors };
  const variableValues = coerced.coerced;
  let value: unknown;
  try {
    const args = argumentsOf(d, variableValues);
    const info: GraphQLResolveInfo = {
      fieldName: d.field.name,
      fieldNodes: [d.node],
      returnType: d.field.type,
      parentType: d.parentType,
      path: { prev: undefined, key: d.alias, typename: d.parentType.name },
      schema: d.schema,
      fragments: d.fragments,
      rootValue: undefined,
      operation: d.operation,
      variableValues,
    };
    value = await d.field.resolve!(undefined, args, context, info);
    const kept = { rows: false };
    const out = complete(d.complete, value, [d.alias], kept);
    return { data: { [d.alias]: kept.rows ? new AnswerText(writeJson(out)) : out } };
  } catch (err) {
    if (err === NOT_DIRECT) return { resolved: value };
    const at = err instanceof FieldError ? err : new FieldError(err, [d.alias]);
    return { data: { [d.alias]: null }, errors: [locatedError(at.error, [d.node], at.path)] };
  }
}

const unwrap = (c: Completion): Completion => (c.kind === 'nonNull' ? c.of : c);

/**
 * Whether rows (JsonRows) complete to themselves: a list of objects selecting exactly their columns,
 * in that order, unaliased, each a leaf that answers its column's values as they are, and non-null
 * only where the column is or where no row holds null. A column the handler says may be null (most
 * are: an analytic dataset does not know its expressions' nullability) is looked for as `"key":null`
 * in the text: with the key's quotes unescaped that can only be that key's value (a quote inside a
 * string is escaped, and the keys are the columns' plain names), a scan far cheaper than parsing.
 */
function fitsAsIs(c: Completion, rows: JsonRows): boolean {
  const list = unwrap(c);
  if (list.kind !== 'list') return false;
  const row = unwrap(list.of);
  const columns = rows.columns;
  return (
    row.kind === 'object' &&
    row.fields.length === columns.length &&
    row.fields.every((f, i) => {
      const col = columns[i];
      if (!f.complete || f.key !== col.key || f.name !== col.key) return false;
      const leaf = unwrap(f.complete);
      if (f.complete.kind === 'nonNull' && col.nullable && mayHoldNull(rows.text, col.key)) return false;
      return leaf.kind === 'leaf' && answersAsIs(leaf.type, col.kind);
    })
  );
}

const PLAIN_KEY = /^\w+$/;

/** Whether a row of the text may hold null at `key`: it does where `"key":null` is, for a plain key. */
function mayHoldNull(text: string, key: string): boolean {
  return !PLAIN_KEY.test(key) || text.includes(`"${key}":null`);
}

/** A field's answer written already: the completed value with JsonRows in it (writeJson). */
class AnswerText {
  constructor(readonly text: string) {}
}

/** A field's value as JSON in the answer: JsonRows that fit the selection are their own text. */
export function answerJson(value: unknown): string {
  if (value instanceof AnswerText || value instanceof JsonRows) return value.text;
  return JSON.stringify(value ?? null);
}

/** JSON.stringify's text of a completed value, but JsonRows in it written as their text. */
function writeJson(value: unknown): string {
  if (value instanceof JsonRows) return value.text;
  if (Array.isArray(value)) return `[${value.map(writeJson).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  const parts: string[] = [];
  for (const [k, v] of Object.entries(value)) if (v !== undefined) parts.push(`${JSON.stringify(k)}:${writeJson(v)}`);
  return `{${parts.join(',')}}`;
}

/** graphql-js's completeValue for the completions above; the first error thrown with its path. */
function complete(c: Completion, value: unknown, path: (string | number)[], kept: { rows: boolean }): unknown {
  if (typeof value === 'function' || typeof (value as { then?: unknown } | null)?.then === 'function') throw NOT_DIRECT;
  if (value instanceof Error) throw new FieldError(value, path);
  switch (c.kind) {
    case 'nonNull': {
      const out = complete(c.of, value, path, kept);
      if (out === null)
        throw new FieldError(new Error(`Cannot return null for non-nullable field ${c.parent}.${c.field}.`), path);
      return out;
    }
    case 'list':
      if (value === null || value === undefined) return null;
      // Rows whose JSON text is their answer: kept as they are, written by writeJson.
      if (value instanceof JsonRows && fitsAsIs(c, value)) {
        kept.rows = true;
        return value;
      }
      if (
        typeof value !== 'object' ||
        typeof (value as { [Symbol.iterator]?: unknown })[Symbol.iterator] !== 'function'
      )
        throw new FieldError(
          new Error(`Expected Iterable, but did not find one for field "${c.parent}.${c.field}".`),
          path,
        );
      return Array.from(value as Iterable<unknown>, (item, i) => complete(c.of, item, [...path, i], kept));
    case 'leaf':
      return value === null || value === undefined ? null : leaf(c.type, value, path);
    case 'object':
      return value === null || value === undefined ? null : object(c, value, path, kept);
  }
}

function leaf(type: GraphQLLeafType, value: unknown, path: (string | number)[]): unknown {
  let out: unknown;
  try {
    out = type.serialize(value);
  } catch (err) {
    throw new FieldError(err, path);
  }
  if (out === null || out === undefined)
    throw new FieldError(
      new Error(
        `Expected \`${type.name}.serialize(${JSON.stringify(value)})\` to return non-nullable value, returned: ${String(out)}`,
      ),
      path,
    );
  return out;
}

function object(
  c: Extract<Completion, { kind: 'object' }>,
  value: unknown,
  path: (string | number)[],
  kept: { rows: boolean },
): unknown {
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const source = typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  for (const f of c.fields) {
    if (!f.complete) out[f.key] = c.type.name;
    else out[f.key] = complete(f.complete, source?.[f.name], [...path, f.key], kept);
  }
  return out;
}
