import {
  Kind,
  visit,
  type ASTNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { validationError } from '../../core/errors';

/**
 * Bounds on what a request asks for, checked before anything is planned: the number of fields once
 * fragments are expanded (Hasura's node_limit), of aliased fields (an alias bomb repeats an expensive
 * field under many names), the nesting of argument values and variables (a `where` hundreds of `_not`
 * deep overflows PostgreSQL's expression stack), and NUL characters in strings, which no text column of
 * PostgreSQL can hold: refused here with `validation-failed` instead of failing deep in the database.
 */
export interface InputLimits {
  maxNodes: number;
  maxAliases: number;
  maxInputDepth: number;
}

interface Count {
  nodes: number;
  aliases: number;
}

/**
 * Fields and aliases of a selection set with fragments expanded. A fragment is counted once and its
 * count reused, so a document whose fragments spread each other many times (a "fragment bomb") costs
 * no more to count than it is long. This runs before validation: a fragment that spreads itself
 * (a cycle, which validation then refuses) counts as empty while it is being counted.
 */
function countSelections(
  set: SelectionSetNode | undefined,
  fragments: Record<string, FragmentDefinitionNode>,
  memo: Map<string, Count>,
): Count {
  const total: Count = { nodes: 0, aliases: 0 };
  for (const s of set?.selections ?? []) {
    let c: Count;
    if (s.kind === Kind.FIELD) {
      const inner = countSelections(s.selectionSet, fragments, memo);
      c = { nodes: inner.nodes + 1, aliases: inner.aliases + (s.alias ? 1 : 0) };
    } else if (s.kind === Kind.INLINE_FRAGMENT) c = countSelections(s.selectionSet, fragments, memo);
    else {
      const name = s.name.value;
      let known = memo.get(name);
      if (!known) {
        memo.set(name, { nodes: 0, aliases: 0 });
        known = countSelections(fragments[name]?.selectionSet, fragments, memo);
        memo.set(name, known);
      }
      c = known;
    }
    total.nodes += c.nodes;
    total.aliases += c.aliases;
  }
  return total;
}

/** Refuses an operation with more fields or aliases than allowed, before it is planned. */
export function checkSelections(
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
  limits: InputLimits,
): void {
  const c = countSelections(operation.selectionSet, fragments, new Map());
  if (c.nodes > limits.maxNodes)
    throw validationError(
      `the query has ${c.nodes} fields (fragments expanded), more than the node limit of ${limits.maxNodes} (MAX_NODES)`,
      '$.selectionSet',
    );
  if (c.aliases > limits.maxAliases)
    throw validationError(
      `the query has ${c.aliases} aliased fields, more than the limit of ${limits.maxAliases} (MAX_ALIASES)`,
      '$.selectionSet',
    );
}

const tooDeep = (max: number, path: string) =>
  validationError(`an input value is nested deeper than the maximum input depth of ${max} (MAX_INPUT_DEPTH)`, path);
const nulChar = (path: string) =>
  validationError('a string value contains a NUL character (\\u0000), which PostgreSQL cannot store', path);

/** Hasura-style path of a value inside the document: `$.selectionSet.f.args.where._not._not`. */
function pathOf(chain: readonly ASTNode[]): string {
  const parts = ['$'];
  for (const [i, a] of chain.entries()) {
    if (a.kind === Kind.LIST && chain[i + 1]) parts[parts.length - 1] += `[${a.values.indexOf(chain[i + 1] as never)}]`;
    else if (a.kind === Kind.FIELD) parts.push('selectionSet', a.alias?.value ?? a.name.value);
    else if (a.kind === Kind.ARGUMENT) parts.push('args', a.name.value);
    else if (a.kind === Kind.OBJECT_FIELD) parts.push(a.name.value);
    else if (a.kind === Kind.VARIABLE_DEFINITION) parts.push('variableDefinitions', a.variable.name.value);
  }
  return parts.join('.');
}

const isNode = (a: unknown): a is ASTNode => !!a && !Array.isArray(a) && typeof (a as ASTNode).kind === 'string';

/**
 * The literal values of the whole document (arguments, directives, variable defaults, fragments): depth
 * of nested objects and lists, and NUL characters in strings. graphql-js's `visit` walks without
 * recursion, so a deep literal cannot overflow the stack here.
 */
export function checkLiterals(node: ASTNode, maxDepth: number): void {
  let depth = 0;
  visit(node, {
    enter(n, _key, parent, _path, ancestors) {
      const chain = () => [...ancestors, parent, n].filter(isNode);
      if (n.kind === Kind.OBJECT || n.kind === Kind.LIST) {
        depth++;
        if (depth > maxDepth) throw tooDeep(maxDepth, pathOf(chain()));
      } else if (n.kind === Kind.STRING && n.value.includes('\0')) throw nulChar(pathOf(chain()));
      return undefined;
    },
    leave(n) {
      if (n.kind === Kind.OBJECT || n.kind === Kind.LIST) depth--;
    },
  });
}

/**
 * Variables as the client sent them (before coercion, which recurses): nesting of objects and lists,
 * and NUL characters in strings and object keys. Stops at the first level past the limit, so the walk
 * itself is bounded by it.
 */
export function checkVariables(vars: unknown, maxDepth: number): void {
  if (!vars || typeof vars !== 'object') return;
  // The keys from the variables down to the value being read: the path is written only for an error.
  const keys: (string | number)[] = [];
  const where = () =>
    keys.reduce<string>((p, k) => (typeof k === 'number' ? `${p}[${k}]` : `${p}.${k}`), '$.variableValues');
  const walk = (value: unknown, depth: number): void => {
    if (typeof value === 'string') {
      if (value.includes('\0')) throw nulChar(where());
      return;
    }
    if (!value || typeof value !== 'object') return;
    if (depth > maxDepth) throw tooDeep(maxDepth, where());
    if (Array.isArray(value))
      for (let i = 0; i < value.length; i++) {
        keys.push(i);
        walk(value[i], depth + 1);
        keys.pop();
      }
    else
      // for-in, not Object.keys: no array of keys made for each object (own keys only, as Object.keys).
      for (const k in value) {
        if (!Object.hasOwn(value, k)) continue;
        if (k.includes('\0')) throw nulChar(where());
        keys.push(k);
        walk((value as Record<string, unknown>)[k], depth + 1);
        keys.pop();
      }
  };
  for (const k of Object.keys(vars)) {
    if (k.includes('\0')) throw nulChar('$.variableValues');
    keys.push(k);
    walk((vars as Record<string, unknown>)[k], 1);
    keys.pop();
  }
}
