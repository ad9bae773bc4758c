import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/**
 * The fields the GraphQL selection asks for under `rows` (through fragments too): the default
 * `columns` of an analytic operation. undefined without resolver info.
 */
export function selectedRowFields(info: GraphQLResolveInfo | undefined): string[] | undefined {
  if (!info) return undefined;
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
