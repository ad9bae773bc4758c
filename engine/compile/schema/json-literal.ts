import { GraphQLError, Kind, type ValueNode } from 'graphql';
import type { JsonPart } from '../model/model-types';

/**
 * GraphQL literals in a json/jsonb position, converted completely as Hasura converts them: strings,
 * booleans, numbers, null, lists and objects are kept, a bare name (`{first: json}`, an enum value in
 * GraphQL's grammar) becomes a string, and a variable inside the literal is its value. Nothing is dropped:
 * a value that cannot be kept exactly (an integer beyond 2^53, a number beyond a double's range) is
 * refused, and so is a variable that was not provided.
 */

function refuse(node: ValueNode, why: string): never {
  throw new GraphQLError(`invalid value for a JSON literal: ${why}`, { nodes: node });
}

function numberOf(node: ValueNode & { value: string }): number {
  const n = Number(node.value);
  if (!Number.isFinite(n)) refuse(node, `the number ${node.value} is out of range`);
  if (node.kind === Kind.INT && !Number.isSafeInteger(n))
    refuse(node, `the integer ${node.value} is beyond 2^53 and cannot be kept exactly; write it as a string`);
  return n;
}

/** Whether a literal holds a variable anywhere inside it. */
export function hasVariable(node: ValueNode): boolean {
  if (node.kind === Kind.VARIABLE) return true;
  if (node.kind === Kind.LIST) return node.values.some(hasVariable);
  if (node.kind === Kind.OBJECT) return node.fields.some((f) => hasVariable(f.value));
  return false;
}

/**
 * The literal as a template: its constant parts as JSON, its variables as references resolved when the
 * plan runs (plans are cached across variable values, so a variable's value is never baked in).
 */
export function jsonTemplate(node: ValueNode): JsonPart {
  switch (node.kind) {
    case Kind.VARIABLE:
      return { variable: node.name.value };
    case Kind.LIST:
      return { list: node.values.map(jsonTemplate) };
    case Kind.OBJECT:
      return { object: node.fields.map((f) => [f.name.value, jsonTemplate(f.value)] as [string, JsonPart]) };
    default:
      return { literal: jsonConstant(node) };
  }
}

/** A literal without variables as its JSON value. */
function jsonConstant(node: ValueNode): unknown {
  switch (node.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
    case Kind.ENUM:
      return node.value;
    case Kind.INT:
    case Kind.FLOAT:
      return numberOf(node);
    case Kind.NULL:
      return null;
    default:
      return refuse(node, `unexpected ${node.kind}`);
  }
}

/**
 * A template's value against the request's variables. `missing` answers for a variable that was not
 * provided (by throwing, when the request runs), so that no key or element silently disappears.
 */
export function fillJsonTemplate(
  part: JsonPart,
  vars: Record<string, unknown>,
  missing: (name: string) => unknown,
): unknown {
  if ('literal' in part) return part.literal;
  if ('variable' in part) return part.variable in vars ? vars[part.variable] : missing(part.variable);
  if ('list' in part) return part.list.map((p) => fillJsonTemplate(p, vars, missing));
  // No prototype: a key named __proto__ is a key like any other.
  const out = Object.create(null) as Record<string, unknown>;
  for (const [k, p] of part.object) out[k] = fillJsonTemplate(p, vars, missing);
  return out;
}

/**
 * `parseLiteral` of the json and jsonb scalars. Validation calls it without variables: a variable then
 * stands as null (it is checked against its declaration, and resolved when the plan runs).
 */
export function parseJsonLiteral(node: ValueNode, vars?: Record<string, unknown> | null): unknown {
  const template = jsonTemplate(node);
  return fillJsonTemplate(template, vars ?? {}, (name) =>
    vars ? refuse(node, `the variable $${name} is not provided`) : null,
  );
}
