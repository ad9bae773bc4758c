import {
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  Kind,
  parse,
  type FieldDefinitionNode,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type InputValueDefinitionNode,
  type TypeNode,
  valueFromAST,
} from 'graphql';
import type { ActionJson } from '../model/metadata-types';
import { scalarType } from './scalars';

export interface ActionField {
  action: ActionJson;
  operation: 'query' | 'mutation';
  type: GraphQLOutputType;
  args: GraphQLFieldConfigArgumentMap;
  description?: string;
}

/**
 * The types and root fields declared in `actions.graphql` (Hasura's custom types), built once and
 * shared by every role's schema. Scalars it names (uuid, jsonb, ...) are the engine's own.
 */
export function buildActionTypes(sdl: string, actions: ActionJson[]): Map<string, ActionField> {
  const out = new Map<string, ActionField>();
  if (!sdl.trim()) {
    if (actions.length) throw new Error(`actions.yaml declares ${actions[0].name} but actions.graphql is missing`);
    return out;
  }
  const doc = parse(sdl);
  const defs = new Map<string, (typeof doc.definitions)[number]>();
  const roots: { op: 'query' | 'mutation'; field: FieldDefinitionNode }[] = [];
  for (const d of doc.definitions) {
    if (
      (d.kind === Kind.OBJECT_TYPE_DEFINITION || d.kind === Kind.OBJECT_TYPE_EXTENSION) &&
      (d.name.value === 'Query' || d.name.value === 'Mutation')
    ) {
      for (const f of d.fields ?? []) roots.push({ op: d.name.value === 'Query' ? 'query' : 'mutation', field: f });
    } else if ('name' in d && d.name) {
      // Family files share one document: a type declared twice would silently replace the first.
      if (defs.has(d.name.value)) throw new Error(`actions: type ${d.name.value} is declared twice`);
      defs.set(d.name.value, d);
    }
  }
  const built = new Map<string, GraphQLNamedType>();
  const named = (name: string): GraphQLNamedType => {
    const have = built.get(name);
    if (have) return have;
    const def = defs.get(name);
    let t: GraphQLNamedType;
    if (!def || def.kind === Kind.SCALAR_TYPE_DEFINITION) t = scalarType(name);
    else if (def.kind === Kind.ENUM_TYPE_DEFINITION) {
      t = new GraphQLEnumType({
        name,
        description: def.description?.value,
        values: Object.fromEntries(
          (def.values ?? []).map((v) => [v.name.value, { description: v.description?.value }]),
        ),
      });
    } else if (def.kind === Kind.INPUT_OBJECT_TYPE_DEFINITION) {
      t = new GraphQLInputObjectType({
        name,
        description: def.description?.value,
        fields: () => Object.fromEntries((def.fields ?? []).map((f) => [f.name.value, inputField(f)])),
      });
    } else if (def.kind === Kind.OBJECT_TYPE_DEFINITION) {
      t = new GraphQLObjectType({
        name,
        description: def.description?.value,
        fields: () =>
          Object.fromEntries(
            (def.fields ?? []).map((f) => [
              f.name.value,
              { type: typeOf(f.type) as GraphQLOutputType, description: f.description?.value },
            ]),
          ),
      });
    } else throw new Error(`actions.graphql: unsupported definition ${def.kind} for ${name}`);
    built.set(name, t);
    return t;
  };
  // The SDL decides whether a reference is an input or an output type; graphql-js checks it later.
  const typeOf = (node: TypeNode): GraphQLInputType | GraphQLOutputType => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    if (node.kind === Kind.NON_NULL_TYPE) return new GraphQLNonNull(typeOf(node.type) as any);
    if (node.kind === Kind.LIST_TYPE) return new GraphQLList(typeOf(node.type)) as GraphQLOutputType;
    return named(node.name.value) as GraphQLInputType;
  };
  const inputField = (f: InputValueDefinitionNode) => {
    const type = typeOf(f.type) as GraphQLInputType;
    return {
      type,
      description: f.description?.value,
      defaultValue: f.defaultValue ? valueFromAST(f.defaultValue, type) : undefined,
    };
  };
  for (const { op, field } of roots) {
    const action = actions.find((a) => a.name === field.name.value);
    if (!action) throw new Error(`actions.graphql declares ${field.name.value}, which actions.yaml does not list`);
    out.set(action.name, {
      action,
      operation: op,
      type: typeOf(field.type) as GraphQLOutputType,
      args: Object.fromEntries((field.arguments ?? []).map((a) => [a.name.value, inputField(a)])),
      description: field.description?.value ?? action.comment,
    });
  }
  for (const a of actions)
    if (!out.has(a.name)) throw new Error(`actions.yaml lists ${a.name}, which actions.graphql does not declare`);
  return out;
}
