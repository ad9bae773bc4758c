import { Kind, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/**
 * The fields the GraphQL selection asks for under `rows` (through fragments too): the default
 * `columns` of an analytic operation. undefined without resolver info.
 */
export function selectedRowFields(info: GraphQLResolveInfo | undefined): readonly string[] | undefined {
  if (!info) return undefined;
  // One field node (every request but a merged selection): the same for every request of its document.
  const node = info.fieldNodes.length === 1 ? info.fieldNodes[0] : undefined;
  const known = node && byNode.get(node);
  if (known) return known;
  const fields = Object.freeze(rowFields(info));
  if (node) byNode.set(node, fields);
  return fields;
}

/** The fields of one field node's selection, kept: frozen, so the statements' cache may key by them. */
const byNode = new WeakMap<FieldNode, readonly string[]>();

function rowFields(info: GraphQLResolveInfo): string[] {
  const out = new Set<string>();
  const walk = (set: SelectionSetNode | undefined, into: (name: string, sub?: SelectionSetNode) => void) => {
    for (const s of set?.selections ?? []) {
      if (s.kind === Kind.FIELD) into(s.name.value, s.selectionSet);
      else if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet, into);
      else if (s.kind === Kind.FRAGMENT_SPREAD) walk(info.fragments[s.name.value]?.selectionSet, into);
    }
  };
  for (const node of info.fieldNodes) {
    walk(node.selectionSet, (name, sub) => {
      if (name === 'rows') walk(sub, (field) => field !== '__typename' && out.add(field));
    });
  }
  return [...out];
}
