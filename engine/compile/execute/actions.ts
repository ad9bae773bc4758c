import type { GraphQLFieldResolver, GraphQLResolveInfo } from 'graphql';
import type { Param, Queryable, Row } from '../../core/db/database';
import type { ActionJson } from '../model/metadata-types';
import type { Session } from '../../core/session';
import type { RequestRecord } from '../../core/request-context';
import { RequestError } from '../../core/errors';

/** What an action handler receives besides its arguments. */
export interface ActionContext<Config = unknown> {
  /**
   * The database. A mutation that also changes tables runs its actions in the request's transaction
   * (then this is it); a mutation of actions only runs them outside any transaction, as Hasura does,
   * so that a handler waiting on another service (a language model, Jira, Loki) holds no connection.
   */
  db: Queryable;
  /**
   * Runs `fn` in a transaction: a new one, or the request's when there is one already. Handlers wrap
   * the writes that must stand or fall together in it, and keep calls to other services outside.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  session: Session;
  /**
   * Whether the session's role may write on the tenant's behalf (the admin role, or a role with a
   * write in the metadata), and which roles may: operations that are queries but write or spend
   * refuse the others (actions/api.ts `refuseReadOnly`).
   */
  writers: { allowed: boolean; roles: readonly string[] };
  /**
   * The request came by GET, a safe method: nothing may be written or spent (`refuseReadOnly` refuses
   * with 405, `writers.allowed` is false, and `db` and `transaction` are READ ONLY).
   */
  safeMethod?: boolean;
  /**
   * A read that only reads (a SELECT whose rows depend on nothing but its placeholders' values and
   * the tables), outside any transaction: the engine may run it as one statement with the same read
   * of concurrent requests, each request's values a cohort of it (coalesce.ts). Resolves to its rows,
   * in its order. Absent inside a transaction and for a GET: use `db`.
   */
  read?(text: string, params: readonly Param[]): Promise<Row[]>;
  /** The actions' own settings (the language model, Loki, Jira), handed over by the composition root. */
  config: Config;
  /** The HTTP request's record, when there is one: the engine's (the parent of a handler's span). */
  record?: RequestRecord;
}

/** `info` (the GraphQL resolver's) tells a handler which fields the caller selected. */
export type ActionHandler = (args: Record<string, unknown>, ctx: ActionContext, info?: GraphQLResolveInfo) => unknown;

/** Handler modules by the name `module:<name>` gives them: each module's exports, by action name. */
export type ActionModules = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/** What the composition root gives the engine for `module:` handlers: the modules and their settings. */
export interface ActionSetup {
  modules: ActionModules;
  config: unknown;
}

export const NO_ACTIONS: ActionSetup = { modules: {}, config: undefined };

/**
 * An action's handler, from `definition.handler` in actions.yaml:
 * - `module:<name>`: the export named after the action in the module registered as `<name>`
 *   (actions/registry.ts: typed imports, so tsc sees every handler);
 * - `http://...` or `https://...`: Hasura's action webhook (POST {action, input, session_variables}).
 */
export function loadHandler(action: ActionJson, modules: ActionModules): ActionHandler {
  const handler = action.definition.handler;
  if (handler.startsWith('module:')) {
    const name = handler.slice('module:'.length);
    const mod = Object.hasOwn(modules, name) ? modules[name] : undefined;
    if (!mod) throw new Error(`action ${action.name}: no handler module "${name}" is registered`);
    const fn = mod[action.name];
    if (typeof fn !== 'function')
      throw new Error(`action ${action.name}: module "${name}" exports no function "${action.name}"`);
    return fn as ActionHandler;
  }
  if (/^https?:\/\//.test(handler)) return webhook(action, handler);
  throw new Error(`action ${action.name}: handler must be "module:<name>" or an http(s) URL, got "${handler}"`);
}

function webhook(action: ActionJson, url: string): ActionHandler {
  const timeoutMs = (action.definition.timeout ?? 30) * 1000;
  return async (input, ctx) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: { name: action.name }, input, session_variables: ctx.session.vars }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = (await res.json().catch(() => null)) as { message?: string } | null;
    if (!res.ok) throw new RequestError('action-error', body?.message ?? `action handler answered ${res.status}`);
    return body;
  };
}

/**
 * A root value holding an action's answer already resolved (direct-field.ts ran the handler but
 * leaves the answer to graphql-js): the resolver answers it instead of calling the handler again.
 */
export const RESOLVED = Symbol('resolved action answer');

/** The one resolver of every action field: look up the handler by field name and call it. */
export function actionResolver(handlers: Map<string, ActionHandler>): GraphQLFieldResolver<unknown, ActionContext> {
  return (root, args, ctx, info) => {
    if (typeof root === 'object' && root !== null && RESOLVED in root)
      return (root as { [RESOLVED]: unknown })[RESOLVED];
    const handler = handlers.get(info.fieldName);
    if (!handler) throw new RequestError('unexpected', `no handler for action ${info.fieldName}`);
    return handler(args, ctx, info);
  };
}
