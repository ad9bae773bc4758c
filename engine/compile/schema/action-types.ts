import {
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  Kind,
  parse,
  type DocumentNode,
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

type Definition = DocumentNode['definitions'][number];

/** The SDL's named definitions, and the fields of its Query and Mutation types (the actions). */
function readDeclarations(doc: DocumentNode) {
  const defs = new Map<string, Definition>();
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
  return { defs, roots };
}

/**
 * The SDL's types as graphql-js types, each built once on first reference; object and input fields
 * are thunks, so types may refer to each other. A name the SDL does not define is an engine scalar.
 */
class SdlTypes {
  private built = new Map<string, GraphQLNamedType>();
  constructor(private readonly defs: Map<string, Definition>) {}

  named(name: string): GraphQLNamedType {
    let t = this.built.get(name);
    if (!t) {
      t = this.build(name, this.defs.get(name));
      this.built.set(name, t);
    }
    return t;
  }

  private build(name: string, def: Definition | undefined): GraphQLNamedType {
    if (!def || def.kind === Kind.SCALAR_TYPE_DEFINITION) return scalarType(name);
    if (def.kind === Kind.ENUM_TYPE_DEFINITION) {
      const values = (def.values ?? []).map((v) => [v.name.value, { description: v.description?.value }]);
      return new GraphQLEnumType({ name, description: def.description?.value, values: Object.fromEntries(values) });
    }
    if (def.kind === Kind.INPUT_OBJECT_TYPE_DEFINITION) {
      const fields = () => Object.fromEntries((def.fields ?? []).map((f) => [f.name.value, this.inputField(f)]));
      return new GraphQLInputObjectType({ name, description: def.description?.value, fields });
    }
    if (def.kind === Kind.OBJECT_TYPE_DEFINITION) {
      const field = (f: FieldDefinitionNode) => ({
        type: this.typeOf(f.type) as GraphQLOutputType,
        description: f.description?.value,
      });
      const fields = () => Object.fromEntries((def.fields ?? []).map((f) => [f.name.value, field(f)]));
      return new GraphQLObjectType({ name, description: def.description?.value, fields });
    }
    throw new Error(`actions.graphql: unsupported definition ${def.kind} for ${name}`);
  }

  /** The SDL decides whether a reference is an input or an output type; graphql-js checks it later. */
  typeOf(node: TypeNode): GraphQLInputType | GraphQLOutputType {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    if (node.kind === Kind.NON_NULL_TYPE) return new GraphQLNonNull(this.typeOf(node.type) as any);
    if (node.kind === Kind.LIST_TYPE) return new GraphQLList(this.typeOf(node.type)) as GraphQLOutputType;
    return this.named(node.name.value) as GraphQLInputType;
  }

  inputField(f: InputValueDefinitionNode) {
    const type = this.typeOf(f.type) as GraphQLInputType;
    return {
      type,
      description: f.description?.value,
      defaultValue: f.defaultValue ? valueFromAST(f.defaultValue, type) : undefined,
    };
  }
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
  const { defs, roots } = readDeclarations(parse(sdl));
  const types = new SdlTypes(defs);
  for (const { op, field } of roots) {
    const action = actions.find((a) => a.name === field.name.value);
    if (!action) throw new Error(`actions.graphql declares ${field.name.value}, which actions.yaml does not list`);
    out.set(action.name, {
      action,
      operation: op,
      type: types.typeOf(field.type) as GraphQLOutputType,
      args: Object.fromEntries((field.arguments ?? []).map((a) => [a.name.value, types.inputField(a)])),
      description: field.description?.value ?? action.comment,
    });
  }
  for (const a of actions)
    if (!out.has(a.name)) throw new Error(`actions.yaml lists ${a.name}, which actions.graphql does not declare`);
  return out;
}
