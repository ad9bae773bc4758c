import {
  getDirectiveValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  type DirectiveNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLObjectType,
  type SelectionSetNode,
} from 'graphql';
import { validationError } from '../../core/errors';
import type { Variables } from './values';

export interface CollectContext {
  fragments: Record<string, FragmentDefinitionNode>;
  variables: Variables;
}

function included(node: { directives?: readonly DirectiveNode[] }, vars: Variables): boolean {
  const skip = getDirectiveValues(GraphQLSkipDirective, node, vars);
  if (skip?.if === true) return false;
  const include = getDirectiveValues(GraphQLIncludeDirective, node, vars);
  return include?.if !== false;
}

/**
 * The fields of a selection set on `type`, grouped by response key in first-seen order, with
 * fragments spread and @include/@skip applied (as graphql-js's own CollectFields does).
 */
export function collectFields(
  type: GraphQLObjectType,
  selections: readonly SelectionSetNode[],
  ctx: CollectContext,
): Map<string, FieldNode[]> {
  const out = new Map<string, FieldNode[]>();
  const visited = new Set<string>();
  const walk = (set: SelectionSetNode) => {
    for (const sel of set.selections) {
      if (!included(sel, ctx.variables)) continue;
      if (sel.kind === Kind.FIELD) {
        const key = sel.alias?.value ?? sel.name.value;
        const list = out.get(key);
        if (list) list.push(sel);
        else out.set(key, [sel]);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        if (!sel.typeCondition || sel.typeCondition.name.value === type.name) walk(sel.selectionSet);
      } else {
        const name = sel.name.value;
        if (visited.has(name)) continue;
        visited.add(name);
        const frag = ctx.fragments[name];
        if (frag && frag.typeCondition.name.value === type.name) walk(frag.selectionSet);
      }
    }
  };
  for (const s of selections) walk(s);
  return out;
}

/** The merged sub-selections of every node that shares one response key. */
export function subSelections(nodes: FieldNode[]): SelectionSetNode[] {
  return nodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));
}

/** The schema's definition of a selected field. */
export function fieldDef(type: GraphQLObjectType, node: FieldNode, path: string): GraphQLField<unknown, unknown> {
  const def = type.getFields()[node.name.value];
  if (!def) throw validationError(`field "${node.name.value}" not found in type: '${type.name}'`, path);
  return def;
}

/** `__typename`, which every planner answers with the type's name, without a definition to read. */
export interface TypenameSelection {
  kind: 'typename';
  alias: string;
  name: string;
}

/** Any other selected field: its response key, its merged nodes, its error path and its definition. */
export interface FieldSelection {
  kind: 'field';
  alias: string;
  nodes: FieldNode[];
  node: FieldNode;
  path: string;
  def: GraphQLField<unknown, unknown>;
}

/**
 * The selected fields of `type` as every planner walks them (collected, `__typename` told apart, each
 * other field's definition found or a validation error at its path), so the planners only say what
 * each field means to them.
 */
export function selectedFields(
  type: GraphQLObjectType,
  sets: readonly SelectionSetNode[],
  ctx: CollectContext,
  path: string,
): (TypenameSelection | FieldSelection)[] {
  return [...collectFields(type, sets, ctx)].map(([alias, nodes]) => {
    const node = nodes[0];
    if (node.name.value === '__typename') return { kind: 'typename', alias, name: type.name };
    const here = `${path}.selectionSet.${alias}`;
    return { kind: 'field', alias, nodes, node, path: here, def: fieldDef(type, node, here) };
  });
}
