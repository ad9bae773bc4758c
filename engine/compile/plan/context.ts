import type { FieldNode, GraphQLField, GraphQLObjectType } from 'graphql';
import type { RolePermissions } from '../model/role-permissions';
import type { CollectContext } from './collect';
import { validationError } from '../../core/errors';
import type { ValueSource } from './ir';
import { resolveArg, type Arg } from './values';

/** A check on a value known only when the plan runs (a variable), e.g. a non-negative limit. */
export interface RuntimeCheck {
  source: ValueSource;
  path: string;
  rule: 'nonNegative';
}

export interface PlanContext extends CollectContext {
  perms: RolePermissions;
  maxRows: number;
  maxDepth: number;
  checks: RuntimeCheck[];
}

/** The arguments given to a field, by name; an absent argument (or unset variable) is not in the map. */
export function fieldArgs(node: FieldNode, def: GraphQLField<unknown, unknown>, ctx: PlanContext): Map<string, Arg> {
  const out = new Map<string, Arg>();
  for (const a of node.arguments ?? []) {
    const argDef = def.args.find((d) => d.name === a.name.value);
    if (!argDef) continue;
    const arg = resolveArg(a.value, argDef.type, ctx.variables);
    if (arg) out.set(a.name.value, arg);
  }
  return out;
}

export function fieldDef(type: GraphQLObjectType, node: FieldNode, path: string): GraphQLField<unknown, unknown> {
  const def = type.getFields()[node.name.value];
  if (!def) throw validationError(`field "${node.name.value}" not found in type: '${type.name}'`, path);
  return def;
}

export const objectFields = (arg: Arg | undefined): [string, Arg][] => (arg?.kind === 'object' ? [...arg.fields] : []);
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
