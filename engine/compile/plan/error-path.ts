import { Kind, visit, type ASTNode, type DocumentNode, type GraphQLError } from 'graphql';

/**
 * Hasura-style path of the node an error points at: `$.selectionSet.<alias>.args.<arg>.<field>`,
 * found by walking the document to that node. Falls back to the line and column.
 */
export function errorPath(document: DocumentNode | undefined, err: GraphQLError): string {
  const target = err.nodes?.[0];
  if (!document || !target) {
    const loc = err.locations?.[0];
    return loc ? `$.query:${loc.line}:${loc.column}` : '$';
  }
  let found: string | undefined;
  visit(document, {
    enter(node, _key, parent, _path, ancestors) {
      if (found || node !== target) return undefined;
      // graphql-js's `ancestors` stops above the parent, so the parent is added here.
      const chain = [
        ...(ancestors as readonly (ASTNode | readonly ASTNode[])[]),
        parent as ASTNode | readonly ASTNode[],
        node,
      ].filter((a): a is ASTNode => !!a && !Array.isArray(a) && 'kind' in (a as object));
      const parts: string[] = ['$'];
      for (const [i, a] of chain.entries()) {
        // An item of a list value, as Hasura writes it: `objects[1]`.
        if (a.kind === Kind.LIST && chain[i + 1])
          parts[parts.length - 1] += `[${a.values.indexOf(chain[i + 1] as never)}]`;
        else if (a.kind === Kind.FIELD) parts.push('selectionSet', a.alias?.value ?? a.name.value);
        else if (a.kind === Kind.ARGUMENT) parts.push('args', a.name.value);
        else if (a.kind === Kind.OBJECT_FIELD) parts.push(a.name.value);
        else if (a.kind === Kind.VARIABLE_DEFINITION) parts.push('variableDefinitions', a.variable.name.value);
      }
      found = parts.join('.');
      return false;
    },
  });
  return found ?? '$';
}
