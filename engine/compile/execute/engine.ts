/*
 * engine/compile/execute: the Engine. Plan cache (role, document, operation, variable shape), binding
 * of parameters, running the one statement and the action handlers, errors in Hasura's shape.
 * Imports the compile stages below it and engine/core; handlers arrive from the composition root.
 */
import {
  execute,
  getVariableValues,
  type GraphQLError,
  getNamedType,
  isListType,
  isNonNullType,
  isScalarType,
  Kind,
  parse,
  validate,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLInputType,
  type OperationDefinitionNode,
  typeFromAST,
} from 'graphql';
import { ADMIN_ROLE, type Session } from '../../core/session';
import type { EngineConfig } from '../../core/config';
import { asDbError, type Database, type Queryable } from '../../core/db/database';
import type { Model } from '../model/model-types';
import { writerRoles } from '../model/role-permissions';
import { errorPath } from '../plan/error-path';
import { errorBody, RequestError, type ErrorCode } from '../../core/errors';
import { variableShape, type Variables } from '../plan/values';
import { buildActionTypes } from '../schema/action-types';
import { buildRoleSchema, type RoleSchema } from '../schema/role-schema';
import {
  actionResolver,
  loadHandler,
  NO_ACTIONS,
  type ActionContext,
  type ActionHandler,
  type ActionSetup,
} from './actions';
import { compile, type ExecutablePlan, type OutputStatement, type Statement } from './compile';
import { Lru } from '../../core/lru';
import { bindOutputParams, bindParams } from './params';
import { assertRuntimeChecks } from './runtime-checks';

export interface GraphqlRequest {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
}

export interface EngineResponse {
  status: number;
  /** JSON text of the response. */
  body: string;
}

/** A parsed, validated document of one role, with what plan keys need from it. */
interface DocumentEntry {
  document: DocumentNode;
  fragments: Record<string, FragmentDefinitionNode>;
  operations: Map<string | undefined, OperationEntry>;
}
interface OperationEntry {
  node: OperationDefinitionNode;
  /** Every variable, and whether its value (not only its presence) can change the SQL. */
  variables: { name: string; type: GraphQLInputType; structural: boolean }[];
  /** Compiled plans by variable shape ('' when no variable is structural). */
  plans: Map<string, ExecutablePlan>;
}

/** Plans kept per operation: one per shape of its structural variables. */
const PLANS_PER_OPERATION = 64;

/**
 * Whether a variable's value can change the SQL: objects, enums and lists of them do; so do Booleans
 * (they may drive @include/@skip). Scalars and lists of scalars are bound as parameters.
 */
function isStructural(type: GraphQLInputType): boolean {
  const t = isNonNullType(type) ? type.ofType : type;
  if (isListType(t)) return !isScalarType(getNamedType(t));
  return !isScalarType(t) || t.name === 'Boolean';
}

/**
 * The error code of a database error the caller caused, as Hasura maps them for queries and mutations:
 * integrity violations (class 23) are `constraint-violation` but a CHECK constraint is `permission-error`;
 * data exceptions (class 22) are `data-exception` but an invalid escape sequence (a LIKE pattern ending
 * in a backslash) is `bad-request`. Any other is internal: undefined.
 */
function expectedDbErrorCode(sqlState: string): ErrorCode | undefined {
  if (sqlState === '23514') return 'permission-error';
  if (sqlState === '22025') return 'bad-request';
  // Upserts of one statement naming one row twice (ON CONFLICT DO UPDATE cannot affect a row a second time).
  if (sqlState === '21000') return 'constraint-violation';
  if (sqlState.startsWith('23')) return 'constraint-violation';
  if (sqlState.startsWith('22')) return 'data-exception';
  return undefined;
}

/**
 * Runs a statement with PostgreSQL's generic plan, planned once per connection and kept: a nested insert
 * of many rows binds thousands of values, and replanning it for each request (custom plans) costs more
 * than writing the rows. The setting is restored for the rest of the transaction.
 */
async function withGenericPlan<T>(tx: Queryable, run: () => Promise<T>): Promise<T> {
  const [old] = await tx.query(
    `SELECT current_setting('plan_cache_mode') AS "mode", set_config('plan_cache_mode', 'force_generic_plan', true)`,
  );
  const result = await run();
  await tx.query(`SELECT set_config('plan_cache_mode', $1, true)`, [String(old.mode)]);
  return result;
}

/** One operation of a request body: anything but an object is a request without a query. */
export function asRequest(body: unknown): GraphqlRequest {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { query: undefined };
  return body as GraphqlRequest;
}

export class Engine {
  private schemas = new Map<string, RoleSchema>();
  /** Parsed and validated documents of each role, by query text. */
  private documents = new Map<string, Lru<string, DocumentEntry>>();
  private handlers = new Map<string, ActionHandler>();
  private actionTypes;
  /** The roles that may write on a tenant's behalf (role-permissions.ts). */
  private readonly writers: string[];
  /** Counts how often SQL was generated; tests use it to show the plan cache works. */
  compilations = 0;

  constructor(
    readonly model: Model,
    readonly db: Database,
    readonly config: EngineConfig,
    private log: (entry: Record<string, unknown>) => void = () => undefined,
    private readonly actions: ActionSetup = NO_ACTIONS,
  ) {
    this.actionTypes = buildActionTypes(model.metadata.actionsSdl, model.metadata.actions);
    this.writers = writerRoles(model);
    for (const a of model.metadata.actions) this.handlers.set(a.name, loadHandler(a, actions.modules));
  }

  /** The role's schema, built on first use. An unknown role is refused. */
  schemaFor(role: string): RoleSchema {
    let s = this.schemas.get(role);
    if (!s) {
      if (!this.model.roles.includes(role))
        throw new RequestError('access-denied', `role "${role}" is not defined in the metadata`, '$', 400);
      s = buildRoleSchema(this.model, role, this.actionTypes, actionResolver(this.handlers) as never);
      this.schemas.set(role, s);
    }
    return s;
  }

  private documentFor(role: RoleSchema, query: string): DocumentEntry {
    let cache = this.documents.get(role.role);
    if (!cache) {
      cache = new Lru(this.config.limits.planCacheSize);
      this.documents.set(role.role, cache);
    }
    let entry = cache.get(query);
    if (entry) return entry;
    let document: DocumentNode;
    try {
      document = parse(query);
    } catch (err) {
      // The parser recurses: a document nested thousands of levels deep overflows the stack first.
      if (err instanceof RangeError)
        throw new RequestError('validation-failed', 'the query is nested too deeply to be parsed', '$.query');
      throw new RequestError(
        'validation-failed',
        (err as GraphQLError).message,
        errorPath(undefined, err as GraphQLError),
      );
    }
    const errors = validate(role.schema, document);
    if (errors.length) throw new RequestError('validation-failed', errors[0].message, errorPath(document, errors[0]));
    const fragments: Record<string, FragmentDefinitionNode> = {};
    const operations = new Map<string | undefined, OperationEntry>();
    for (const d of document.definitions) {
      if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
      else if (d.kind === Kind.OPERATION_DEFINITION) {
        const variables = (d.variableDefinitions ?? []).map((v): [string, GraphQLInputType] => [
          v.variable.name.value,
          typeFromAST(role.schema, v.type as never) as GraphQLInputType,
        ]);
        operations.set(d.name?.value, {
          node: d,
          variables: variables.map(([name, type]) => ({ name, type, structural: isStructural(type) })),
          plans: new Map(),
        });
      }
    }
    entry = { document, fragments, operations };
    cache.set(query, entry);
    return entry;
  }

  private operationOf(entry: DocumentEntry, name: unknown): OperationEntry {
    if (name !== undefined && name !== null && typeof name !== 'string')
      throw new RequestError('validation-failed', 'operationName must be a string', '$.operationName');
    if (typeof name === 'string') {
      const op = entry.operations.get(name);
      if (!op)
        throw new RequestError(
          'validation-failed',
          `no such operation found in the document: "${name}"`,
          '$.operationName',
        );
      return op;
    }
    if (entry.operations.size !== 1)
      throw new RequestError(
        'validation-failed',
        'exactly one operation has to be present in the document when operationName is not specified',
        '$',
      );
    return entry.operations.values().next().value as OperationEntry;
  }

  /** Runs one GraphQL request for a session and returns the response text. */
  async run(request: GraphqlRequest, session: Session): Promise<EngineResponse> {
    try {
      return await this.runUnsafe(request, session);
    } catch (err) {
      return this.failure(err, session);
    }
  }

  /**
   * A batch (a JSON array of operations), as Hasura runs it: one after the other, in order, each in its
   * own transaction, so that each sees what the ones before it wrote and a failure undoes only its own
   * changes. More than `limits.maxBatchSize` operations are refused before any runs.
   */
  async runBatch(requests: unknown[], session: Session): Promise<EngineResponse> {
    const max = this.config.limits.maxBatchSize;
    if (requests.length > max)
      return this.failure(
        new RequestError(
          'bad-request',
          `a batch may hold at most ${max} operations (MAX_BATCH_SIZE); this one holds ${requests.length}`,
          '$',
          400,
        ),
        session,
      );
    const bodies: string[] = [];
    for (const r of requests) bodies.push((await this.run(asRequest(r), session)).body);
    return { status: 200, body: `[${bodies.join(',')}]` };
  }

  private async runUnsafe(request: GraphqlRequest, session: Session): Promise<EngineResponse> {
    if (typeof request.query !== 'string' || request.query.trim() === '')
      throw new RequestError('bad-request', 'the request body needs a "query" string', '$.query', 400);
    if (
      request.variables !== undefined &&
      request.variables !== null &&
      (typeof request.variables !== 'object' || Array.isArray(request.variables))
    ) {
      throw new RequestError('bad-request', '"variables" must be an object', '$.variables', 400);
    }
    const role = this.schemaFor(session.role);
    const entry = this.documentFor(role, request.query);
    const operation = this.operationOf(entry, request.operationName);
    const coerced = getVariableValues(
      role.schema,
      operation.node.variableDefinitions ?? [],
      (request.variables ?? {}) as Record<string, unknown>,
    );
    if (coerced.errors) throw new RequestError('validation-failed', coerced.errors[0].message, '$.variableValues');
    const vars = coerced.coerced;
    const plan = this.planFor(role, operation, entry, vars);
    assertRuntimeChecks(plan.checks, vars, session);
    return plan.operation === 'mutation' ? this.runMutation(plan, vars, session) : this.runQuery(plan, vars, session);
  }

  /** The plan of an operation for these variables' shape; SQL is generated once per shape. */
  private planFor(role: RoleSchema, operation: OperationEntry, entry: DocumentEntry, vars: Variables): ExecutablePlan {
    // A scalar variable left out is an absent argument (no LIMIT, no comparison): presence counts.
    let shape = '';
    for (const v of operation.variables)
      shape += v.structural ? `${variableShape(vars[v.name], v.type)};` : v.name in vars ? 'p;' : 'a;';
    let plan = operation.plans.get(shape);
    if (!plan) {
      plan = compile(role, operation.node, entry.fragments, vars, this.config.limits, {
        stringifyNumeric: this.config.stringifyNumericTypes,
      });
      this.compilations++;
      if (operation.plans.size >= PLANS_PER_OPERATION) operation.plans.clear();
      operation.plans.set(shape, plan);
    }
    return plan;
  }

  private async runGraphql(
    document: DocumentNode,
    role: RoleSchema,
    vars: Variables,
    ctx: ActionContext,
  ): Promise<Record<string, unknown>> {
    const result = await execute({ schema: role.schema, document, variableValues: vars, contextValue: ctx });
    if (result.errors?.length)
      throw result.errors[0].originalError instanceof RequestError
        ? result.errors[0].originalError
        : new RequestError(
            'action-error',
            result.errors[0].message,
            `$.selectionSet.${result.errors[0].path?.join('.') ?? ''}`,
          );
    return (result.data ?? {}) as Record<string, unknown>;
  }

  private async runQuery(plan: ExecutablePlan, vars: Variables, session: Session): Promise<EngineResponse> {
    const role = this.schemaFor(session.role);
    const [rows, other] = await Promise.all([
      plan.query ? this.db.query(plan.query.text, bindParams(plan.query.params, vars, session)) : Promise.resolve([]),
      plan.graphql
        ? this.runGraphql(plan.graphql, role, vars, this.actionContext(session))
        : Promise.resolve({} as Record<string, unknown>),
    ]);
    const row = rows[0] ?? {};
    const parts = plan.fields.map(
      (f) =>
        `${JSON.stringify(f.alias)}:${f.from === 'query' ? ((row[f.column] as string | null) ?? 'null') : JSON.stringify(other[f.alias] ?? null)}`,
    );
    return { status: 200, body: `{"data":{${parts.join(',')}}}` };
  }

  /** The context of action handlers: outside a transaction, or inside `tx` (the request's). */
  private actionContext(session: Session, tx?: Queryable): ActionContext {
    const config = this.actions.config;
    const writers = {
      allowed: session.role === ADMIN_ROLE || this.writers.includes(session.role),
      roles: this.writers,
    };
    if (tx) return { db: tx, session, config, writers, transaction: (fn) => fn(tx) };
    return { db: this.db, session, config, writers, transaction: (fn) => this.db.transaction(fn) };
  }

  private async runMutation(plan: ExecutablePlan, vars: Variables, session: Session): Promise<EngineResponse> {
    // Table changes and the actions beside them stand or fall together, in one transaction. Actions
    // alone need none of the engine's: each handler opens its own around its writes, so that a slow
    // call to another service holds no connection (on PGlite: the only one).
    const parts = plan.steps.every((step) => step.kind === 'graphql')
      ? await this.runSteps(plan, vars, session)
      : await this.db.transaction((tx: Queryable) => this.runSteps(plan, vars, session, tx));
    return { status: 200, body: `{"data":{${parts.join(',')}}}` };
  }

  /** One mutation statement (and its output statement): the field's JSON, or the refusal of its checks. */
  private async runSql(
    step: { statement: Statement; output?: OutputStatement },
    alias: string,
    vars: Variables,
    session: Session,
    tx: Queryable,
  ): Promise<string> {
    const refused = (path = `$.selectionSet.${alias}`) =>
      new RequestError('permission-error', 'check constraint of an insert/update permission has failed', path);
    const params = bindParams(step.statement.params, vars, session);
    const [row] = step.statement.genericPlan
      ? await withGenericPlan(tx, () => tx.query(step.statement.text, params))
      : await tx.query(step.statement.text, params);
    if (row.ok === false || row.ok === 'f') throw refused();
    if (typeof row.empty === 'string') {
      // A nested insert's object relationship wrote no row (an upsert that did nothing), as Hasura says.
      const [path, message] = JSON.parse(row.empty) as [string, string];
      throw new RequestError('not-supported', message, path);
    }
    if (!step.output) return (row.out as string | null) ?? 'null';
    const [o] = await tx.query(step.output.text, bindOutputParams(step.output, row.rows, vars, session));
    // A nested insert checks each table's insert permission in the output statement, which sees every
    // row; its refusal statement then names the rows refused.
    if (o.ok === false || o.ok === 'f') {
      const refusal = step.output.refusal;
      if (!refusal) throw refused();
      const [r] = await tx.query(refusal.text, bindOutputParams(refusal, row.rows, vars, session));
      throw refused(typeof r.refused === 'string' ? r.refused : undefined);
    }
    return (o.out as string | null) ?? 'null';
  }

  /** Each root field of a mutation in document order, as `"alias":json`; SQL steps need `tx`. */
  private async runSteps(plan: ExecutablePlan, vars: Variables, session: Session, tx?: Queryable): Promise<string[]> {
    const role = this.schemaFor(session.role);
    const out: string[] = [];
    for (const step of plan.steps) {
      let value: string;
      if (step.kind === 'sql') value = await this.runSql(step, step.alias, vars, session, tx!);
      else if (step.kind === 'sqlList') {
        // update_T_many: one statement per update, in order, each seeing the ones before.
        const values: string[] = [];
        for (const item of step.items) values.push(await this.runSql(item, step.alias, vars, session, tx!));
        value = `[${values.join(',')}]`;
      } else {
        const data = await this.runGraphql(step.document, role, vars, this.actionContext(session, tx));
        value = JSON.stringify(data[step.alias] ?? null);
      }
      out.push(`${JSON.stringify(step.alias)}:${value}`);
    }
    return out;
  }

  /** Maps any failure to Hasura's error shape; internal details only for admin-secret callers. */
  failure(err: unknown, session?: Session): EngineResponse {
    if (err instanceof RequestError)
      return { status: err.status, body: errorBody([{ message: err.message, code: err.code, path: err.path }]) };
    const db = asDbError(err);
    if (db) {
      const code = expectedDbErrorCode(db.code!);
      if (code) return { status: 200, body: errorBody([{ message: db.message, code, path: '$' }]) };
      this.log({ level: 'error', msg: 'database error', code: db.code, error: db.message });
      const message =
        db.code === '57014'
          ? 'the query took longer than the statement timeout'
          : session?.isAdmin
            ? db.message
            : 'database query error';
      return {
        status: 200,
        body: errorBody([
          {
            message,
            code: 'postgres-error',
            path: '$',
            internal: session?.isAdmin ? { code: db.code, detail: db.detail } : undefined,
          },
        ]),
      };
    }
    this.log({ level: 'error', msg: 'unexpected error', error: (err as Error)?.stack ?? String(err) });
    return {
      status: 500,
      body: errorBody([
        {
          message: session?.isAdmin ? `unexpected error: ${(err as Error)?.message}` : 'unexpected error',
          code: 'unexpected',
          path: '$',
        },
      ]),
    };
  }
}
