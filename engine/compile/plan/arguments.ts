import type { FieldNode, GraphQLField } from 'graphql';
import type { CollectContext } from './collect';
import { resolveArg, type Arg } from './values';

/** The arguments given to a field, by name; an absent argument (or unset variable) is not in the map. */
export function fieldArgs(node: FieldNode, def: GraphQLField<unknown, unknown>, ctx: CollectContext): Map<string, Arg> {
  const out = new Map<string, Arg>();
  for (const a of node.arguments ?? []) {
    const argDef = def.args.find((d) => d.name === a.name.value);
    if (!argDef) continue;
    const arg = resolveArg(a.value, argDef.type, ctx.variables);
    if (arg) out.set(a.name.value, arg);
  }
  return out;
}

/** The fields of an input object argument, in the order given; anything else has none. */
export const objectFields = (arg: Arg | undefined): [string, Arg][] => (arg?.kind === 'object' ? [...arg.fields] : []);

/** The items of a list argument; a single value stands for a list of one (GraphQL input coercion). */
export const listItems = (arg: Arg | undefined): Arg[] =>
  arg?.kind === 'list' ? arg.items : arg && arg.kind !== 'null' ? [arg] : [];

/**
 * The value of a Boolean argument at plan time. Boolean variables are part of the plan's cache key
 * (see variableShape), so reading one here keeps the plan correct for every request that uses it.
 */
export function booleanValue(arg: Arg | undefined, vars: Record<string, unknown>): boolean | undefined {
  if (!arg || arg.kind !== 'leaf') return undefined;
  const s = arg.source;
  if (s.from === 'literal') return s.value === null ? undefined : Boolean(s.value);
  if (s.from !== 'variable') return undefined;
  // A Boolean inside a variable's object (`$where` holding `distinct: true`) is read at its path.
  let v: unknown = vars[s.name];
  for (const p of s.path) v = v == null ? undefined : (v as Record<string | number, unknown>)[p];
  return v == null ? undefined : Boolean(v);
}
