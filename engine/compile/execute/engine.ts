/*
 * engine/compile/execute: the Engine. Plan cache (role, document, operation, variable shape), binding
 * of parameters, running the one statement and the action handlers, errors in Hasura's shape.
 * Imports the compile stages below it and engine/core; handlers arrive from the composition root.
 */
import {
  execute,
  type ExecutionResult,
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
import { asDbError, type Database, type Param, type Queryable, type Row } from '../../core/db/database';
import { placeholderTypes } from '../../core/db/placeholder-types';
import { asUnavailable, isConnectionFailure, QUERY_CANCELED, readAgainOnFailure } from '../../core/db/faults';
import type { Model } from '../model/model-types';
import { writerRoles } from '../model/role-permissions';
import { errorPath } from '../plan/error-path';
import { errorBody, RequestError, type ErrorCode } from '../../core/errors';
import { countFreeShape, variableShape, type Variables } from '../plan/values';
import { buildActionTypes } from '../schema/action-types';
import { buildRoleSchema, type RoleSchema } from '../schema/role-schema';
import {
  actionResolver,
  loadHandler,
  RESOLVED,
  NO_ACTIONS,
  type ActionContext,
  type ActionHandler,
  type ActionSetup,
} from './actions';
import { answerJson, directField, runDirect } from './direct-field';
import { compile, type ExecutablePlan, type LoneStatement, type OutputStatement, type Statement } from './compile';
import { LONE_REFUSAL } from '../sql/mutation';
import { cohortType } from '../sql/writer';
import { coerceVariables } from './coerce-variables';
import { Lru } from '../../core/lru';
import { bindOutputParams, bindParams, resolveSource } from './params';
import { STREAM_CURSOR } from '../plan/plan-stream';
import { assertRuntimeChecks } from './runtime-checks';
import { checkLiterals, checkSelections, checkVariables } from './input-limits';
import { AnswerMemory, BUDGET_CODES, countRows, RequestBudget } from './request-budget';
import { noteOperation, withRequest, type RequestRecord } from '../../core/request-context';
import { NO_TRACING, type Tracing } from '../../core/tracing';
import type { Metrics } from '../../core/metrics';
import { RecentWriters } from './read-your-writes';
import { Coalescer, type QueryStatement } from './coalesce';

/** What the engine reports beside its answers: counts for /metrics, spans for traces. Both optional. */
export interface EngineTelemetry {
  metrics?: Metrics;
  tracing?: Tracing;
}

export interface GraphqlRequest {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
  extensions?: unknown;
}

/** How one operation is run. */
export interface RunOptions {
  /** The limits of the HTTP request it belongs to (a batch's, shared by its operations). */
  budget?: RequestBudget;
  /**
   * It came by a safe method (GET), which must change nothing: a mutation is refused with 405 before
   * anything runs, and the actions of a query see the database through read-only transactions.
   */
  safeMethod?: boolean;
  /** Read from the primary, never a replica (`x-hasura-use-primary`, admin-secret callers only). */
  usePrimary?: boolean;
  /** The HTTP request's record: the engine notes there the operation, role, rows and error code. */
  record?: RequestRecord;
}

/** One subscriber's live query: the statement (the same for all who share it) and its values. */
export interface LiveQuery {
  /** The response key of the subscription's one root field. */
  alias: string;
  text: string;
  /** The last placeholder: the answer's byte limit. */
  bytesParam: number;
  /** The values of placeholders 1 .. bytesParam - 1. */
  values: Param[];
  /** Their SQL types, for unnesting the cohorts' values (sql/writer.ts cohortType; undefined: text). */
  cohortTypes?: (string | undefined)[];
  /** A stream (T_stream): which of `values` is the cursor; rows carry it as STREAM_CURSOR. */
  stream?: { cursorParam: number };
}

export interface EngineResponse {
  status: number;
  /** JSON text of the response. */
  body: string;
  /**
   * The same text in pieces, when the engine made it of pieces (`DataAnswer`): the HTTP lane writes
   * them as they are, so that a large answer is not copied into one string first.
   */
  pieces?: readonly string[];
  /** Headers beside content-type (Retry-After of a database that is down or busy). */
  headers?: Record<string, string>;
  /** The code of an answer that is an error (no data): the HTTP route chooses a status by it. */
  code?: string;
}

/**
 * A query's answer: `{"data":{...}}` as the pieces it is made of, the fields' JSON from the database
 * among them, joined only when asked for `body`. Joining copies every answer once more, and Node
 * heads and measures a string answer by copying it again (twice for one of many kilobytes): under load
 * those copies were most of what the engine allocated beyond the floor (a heap profile of the bench's
 * ex_GetRecommendations), and each kilobyte allocated is collected.
 */
class DataAnswer implements EngineResponse {
  readonly status = 200;
  private joined?: string;
  constructor(readonly pieces: readonly string[]) {}
  get body(): string {
    return (this.joined ??= this.pieces.join(''));
  }
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
  /**
   * Compiled plans by variable shape ('' when no variable is structural). Under a key where a list
   * variable stands without its count (`shapeKey`), COUNTED when the plan found there depended on it.
   */
  plans: Map<string, ExecutablePlan | typeof COUNTED>;
}

const COUNTED = 'counted';

/**
 * The plan cache's key for these variables: their shapes, and for a scalar variable whether it is
 * given (a scalar left out is an absent argument: no LIMIT, no comparison). With `countFree`, a list
 * of items of one shape stands without its count (values.ts `countFreeShape`); `collapsed` names them.
 */
function shapeKey(operation: OperationEntry, vars: Variables, countFree: boolean) {
  let key = '';
  const collapsed: string[] = [];
  for (const v of operation.variables) {
    if (!v.structural) {
      key += v.name in vars ? 'p;' : 'a;';
      continue;
    }
    const free = countFree ? countFreeShape(vars[v.name], v.type) : undefined;
    if (free) collapsed.push(v.name);
    key += `${free ?? variableShape(vars[v.name], v.type)};`;
  }
  return { key, collapsed };
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
 * Which refusal a lone mutation statement failed with (mutation.ts LONE_REFUSAL): 'check', or the
 * answer's size in bytes; undefined for any other failure. The cast that fails names the text it got.
 */
function loneRefusal(err: unknown): 'check' | number | undefined {
  const db = asDbError(err);
  if (db?.code !== '22P02') return undefined;
  if (db.message.includes(`"${LONE_REFUSAL.check} `)) return 'check';
  const size = LONE_SIZE.exec(db.message);
  return size ? Number(size[1]) : undefined;
}

const LONE_SIZE = new RegExp(`"${LONE_REFUSAL.size} (\\d+)"`);

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

/** The SQL texts a plan runs: its queries, and each mutation step's statements (a lone one as it runs). */
function plannedSql(plan: ExecutablePlan): string[] {
  const steps = plan.steps.flatMap((step) => {
    if (step.kind === 'graphql') return [];
    const items = step.kind === 'sql' ? [step] : step.items;
    return items.flatMap((i: { statement: Statement; output?: OutputStatement; lone?: LoneStatement }) => [
      ...(i.lone ? [i.lone.text, ...(i.lone.batch ? [i.lone.batch.text] : [])] : []),
      i.statement.text,
      ...(i.output ? [i.output.text] : []),
    ]);
  });
  return [...plan.queries.map((q) => q.text), ...steps];
}

/**
 * A handler's database error that is not the caller's doing (a connection failure, a syntax error, a
 * timeout): told as the engine's own are (Engine.failure), so that its text, which may carry SQL or an
 * address, reaches admin callers and the log only. Constraint and data errors stay the handler's.
 */
function isInternalDbError(err: unknown): boolean {
  if (isConnectionFailure(err)) return true;
  const db = asDbError(err);
  return db !== undefined && expectedDbErrorCode(db.code!) === undefined;
}

/**
 * The types of a request's parameters (GraphQL over HTTP): `variables` and `extensions` are maps,
 * `operationName` a string; each may be null or absent. Another type is not a well-formed request: 400.
 */
function checkRequestShape(request: GraphqlRequest): void {
  const isMap = (v: unknown) => v === undefined || v === null || (typeof v === 'object' && !Array.isArray(v));
  if (!isMap(request.variables))
    throw new RequestError('bad-request', '"variables" must be an object', '$.variables', 400);
  if (!isMap(request.extensions))
    throw new RequestError('bad-request', '"extensions" must be an object', '$.extensions', 400);
  const name = request.operationName;
  if (name !== undefined && name !== null && typeof name !== 'string')
    throw new RequestError('bad-request', '"operationName" must be a string', '$.operationName', 400);
}

/** PostgreSQL's read_only_sql_transaction: a statement tried to write in a READ ONLY transaction. */
const isReadOnlyViolation = (err: unknown) => asDbError(err)?.code === '25006';

const writesOnGet = () =>
  new RequestError('method-not-allowed', 'this operation writes, which a GET request never does: use POST', '$', 405);

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
  /** The resolver of every action field of every role's schema (direct-field.ts runs the fields it resolves). */
  private readonly resolveAction = actionResolver(this.handlers);
  private actionTypes;
  /** The roles that may write on a tenant's behalf (role-permissions.ts). */
  private readonly writers: string[];
  /** Counts how often SQL was generated; tests use it to show the plan cache works. */
  compilations = 0;
  /** The answers all requests hold at once (MAX_RESPONSE_BYTES_IN_FLIGHT). */
  private readonly answerMemory: AnswerMemory;
  /** Queries' statements of concurrent requests, run as one (coalesce.ts). */
  readonly coalescer = new Coalescer(
    (reader, text, params, signal, onRow) => reader.query(text, params, { signal, onRow }),
    {
      counted: (requests) => this.metrics?.coalescedBatch(requests),
      describe: (text) => placeholderTypes(this.db, text),
      requestsInFlight: () => this.answering,
    },
  );
  /** Requests being answered (from their budget's making to its end): the coalescer's measure of load. */
  private answering = 0;
  /** Sessions that just wrote: their reads stay on the primary (read-your-writes.ts). */
  private readonly recentWriters: RecentWriters;

  constructor(
    readonly model: Model,
    readonly db: Database,
    readonly config: EngineConfig,
    private log: (entry: Record<string, unknown>) => void = () => undefined,
    private readonly actions: ActionSetup = NO_ACTIONS,
    telemetry: EngineTelemetry = {},
  ) {
    this.answerMemory = new AnswerMemory(config.limits.maxResponseBytesInFlight);
    this.recentWriters = new RecentWriters(
      config.replicas.readYourWritesSeconds,
      config.tenancy?.variable ?? 'x-hasura-tenant-id',
    );
    this.actionTypes = buildActionTypes(model.metadata.actionsSdl, model.metadata.actions);
    this.writers = writerRoles(model);
    this.metrics = telemetry.metrics;
    this.tracing = telemetry.tracing ?? NO_TRACING;
    for (const a of model.metadata.actions) {
      const handler = loadHandler(a, actions.modules);
      this.handlers.set(a.name, this.tracing.on ? this.tracedHandler(a.name, handler) : handler);
    }
  }

  private readonly metrics?: Metrics;
  private readonly tracing: Tracing;

  /** An action's handler inside a span of its own (only when tracing is on). */
  private tracedHandler(name: string, handler: ActionHandler): ActionHandler {
    return (args, ctx, info) =>
      this.tracing.span(
        `action ${name}`,
        { 'graphql.action': name, 'graphql.field': info?.path.key },
        () => handler(args, ctx, info),
        ctx.record?.span,
      );
  }

  /** A statement, in a span of its own when tracing is on (its SQL text has $n slots, never values). */
  private query(db: Queryable, text: string, params: readonly Param[], budget: RequestBudget) {
    const signal = budget.signal;
    if (!this.tracing.on) return db.query(text, params, { signal });
    return this.tracing.span(
      'db.query',
      { 'db.system': 'postgresql', 'db.query.text': text.slice(0, 4096) },
      () => db.query(text, params, { signal }),
      budget.record?.span,
    );
  }

  /**
   * The answer row of a query's statement: coalesced with the same statement of other requests of
   * this turn (coalesce.ts), or alone: with DATABASE_COALESCE=false, and when tracing is on (each
   * request's statement in a span of its own).
   */
  private answerRow(reader: Queryable, query: QueryStatement, bound: Param[], budget: RequestBudget) {
    if (this.coalescing) return this.coalescer.row(reader, query, bound, budget.signal);
    return readAgainOnFailure(
      () => this.query(reader, query.text, bound, budget),
      () => budget.signal.aborted,
    ).then((rows) => rows[0]);
  }

  /** Whether reads are coalesced: unless DATABASE_COALESCE=false, or tracing gives each its own span. */
  private get coalescing(): boolean {
    return !this.tracing.on && this.config.database.coalesce;
  }

  /** The role's schema, built on first use. An unknown role is refused. */
  schemaFor(role: string): RoleSchema {
    let s = this.schemas.get(role);
    if (!s) {
      if (!this.model.roles.includes(role))
        throw new RequestError('access-denied', `role "${role}" is not defined in the metadata`, '$', 400);
      s = buildRoleSchema(this.model, role, this.actionTypes, this.resolveAction as never);
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
    // Before validation, whose cost grows with the square of the fields (overlapping fields rule).
    this.checkDocumentLimits(document);
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

  /** Fields, aliases, input nesting and NUL characters of every operation of a document, within the limits. */
  private checkDocumentLimits(document: DocumentNode): void {
    checkLiterals(document, this.config.limits.maxInputDepth);
    const fragments: Record<string, FragmentDefinitionNode> = {};
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
    for (const d of document.definitions)
      if (d.kind === Kind.OPERATION_DEFINITION) checkSelections(d, fragments, this.config.limits);
  }

  private operationOf(entry: DocumentEntry, name: unknown): OperationEntry {
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

  /** The limits of one HTTP request's work, shared by the operations of a batch. */
  private newBudget(record: RequestRecord | undefined): RequestBudget {
    this.answering++;
    const l = this.config.limits;
    return new RequestBudget(
      { maxTotalRows: l.maxTotalRows, maxResponseBytes: l.maxResponseBytes, requestTimeoutMs: l.requestTimeoutMs },
      this.answerMemory,
      record,
    );
  }

  /** Runs one GraphQL request for a session and returns the response text. */
  async run(request: GraphqlRequest, session: Session, opts: RunOptions = {}): Promise<EngineResponse> {
    const budget = opts.budget ?? this.newBudget(opts.record);
    this.noteSession(session, budget.record);
    try {
      return await this.runUnsafe(request, session, budget, opts);
    } catch (err) {
      // A statement cancelled at the deadline fails with PostgreSQL's 57014: the answer names the limit.
      if (budget.timedOut) return this.failure(budget.timeoutError(), session, budget.record);
      const failed = opts.safeMethod && isReadOnlyViolation(err) ? writesOnGet() : err;
      return this.failure(failed, session, budget.record);
    } finally {
      if (!opts.budget) this.done(budget);
    }
  }

  /**
   * A batch (a JSON array of operations), as Hasura runs it: one after the other, in order, each in its
   * own transaction, so that each sees what the ones before it wrote and a failure undoes only its own
   * changes. More than `limits.maxBatchSize` operations are refused before any runs.
   */
  async runBatch(
    requests: unknown[],
    session: Session,
    opts: Pick<RunOptions, 'usePrimary' | 'record'> = {},
  ): Promise<EngineResponse> {
    this.noteSession(session, opts.record);
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
        opts.record,
      );
    // Rows, bytes and time are counted over the whole batch: past a limit the batch stops and the
    // request gets that one error, not a part of the answers.
    const budget = this.newBudget(opts.record);
    try {
      const bodies: string[] = [];
      for (const r of requests) {
        if (budget.timedOut) return this.failure(budget.timeoutError(), session, opts.record);
        const res = await this.run(asRequest(r), session, { ...opts, budget });
        const code = res.status === 200 && res.body.startsWith('{"errors"') ? this.codeOf(res.body) : undefined;
        if (code && BUDGET_CODES.has(code)) return res;
        bodies.push(res.body);
        // The database is down or busy: the rest would fail alike; the answers so far say what ran.
        if (res.status === 503) return { ...res, body: `[${bodies.join(',')}]` };
      }
      return { status: 200, body: `[${bodies.join(',')}]` };
    } finally {
      this.done(budget);
    }
  }

  /** Who asked, for the access line: the role and the session's tenant (never a credential). */
  private noteSession(session: Session, record: RequestRecord | undefined): void {
    if (!record) return;
    record.role = session.role;
    record.tenant = session.vars[this.config.tenancy?.variable ?? 'x-hasura-tenant-id'];
  }

  /** The request's work is over: its rows go to the access log (core/request-context.ts). */
  private done(budget: RequestBudget): void {
    this.answering--;
    if (budget.record) budget.record.rows = budget.rowCount;
    budget.dispose();
  }

  /** The code of an error response's first error. */
  private codeOf(body: string): string | undefined {
    return (JSON.parse(body) as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code;
  }

  private async runUnsafe(
    request: GraphqlRequest,
    session: Session,
    budget: RequestBudget,
    opts: RunOptions,
  ): Promise<EngineResponse> {
    const safeMethod = opts.safeMethod === true;
    const { plan, vars } = this.prepare(request, session, safeMethod ? 'get' : 'http', budget.record);
    if (plan.operation === 'mutation') {
      try {
        return await this.runMutation(plan, vars, session, budget);
      } finally {
        // Even a failed one: an action may have committed before a later field failed. Only reads
        // that could go to a replica ask (readerFor): without replicas there is nothing to remember.
        if (this.db.replicas) this.recentWriters.wrote(session);
      }
    }
    const reader = this.readerFor(plan, session, opts.usePrimary === true);
    // Reading loses nothing when abandoned: the answer is the timeout as soon as the deadline passes.
    return Promise.race([this.runQuery(plan, vars, session, budget, reader, safeMethod), budget.expired]);
  }

  /**
   * Where a query's table statements run: a read replica when the engine can tell the operation only
   * reads (table, aggregate and by-pk fields, whose statements are SELECTs), the primary when it has
   * action fields (a handler may write or read what it wrote), when the caller asked for the primary,
   * or when this session wrote within READ_YOUR_WRITES_SECONDS.
   */
  private readerFor(plan: ExecutablePlan, session: Session, usePrimary: boolean): Queryable {
    const replicas = this.db.replicas;
    if (!replicas || usePrimary || plan.graphql || this.recentWriters.holds(session)) return this.db;
    return replicas;
  }

  /**
   * A subscription's live query for one subscriber: the statement of its one table field and this
   * subscriber's values for it (live-queries.ts runs it for many subscribers at once). A query or a
   * mutation: undefined (`run` answers it once). An invalid request throws, as `run` answers it.
   */
  liveQuery(request: GraphqlRequest, session: Session): LiveQuery | undefined {
    const { plan, vars } = this.prepare(request, session, 'ws');
    if (plan.operation !== 'subscription') return undefined;
    const [query] = plan.queries;
    const [field] = plan.fields;
    if (plan.queries.length !== 1 || plan.graphql || !field || field.from !== 'query')
      throw new RequestError('not-supported', 'a subscription must select one table field', '$');
    if (!plan.stream)
      return {
        alias: field.alias,
        text: query.text,
        bytesParam: query.bytesParam,
        values: bindParams(query.params, vars, session),
        cohortTypes: query.params.map(cohortType),
      };
    // A stream's cursor is a placeholder of its own, which the live query moves past each batch.
    const at = { ...vars, [STREAM_CURSOR]: resolveSource(plan.stream.initial, vars, session) };
    const cursorParam = query.params.findIndex((p) => p.source.from === 'variable' && p.source.name === STREAM_CURSOR);
    return {
      alias: field.alias,
      text: query.text,
      bytesParam: query.bytesParam,
      values: bindParams(query.params, at, session),
      cohortTypes: query.params.map(cohortType),
      stream: { cursorParam },
    };
  }

  /**
   * Parse, validate, coerce the variables, plan (cached) and check: what every operation runs on. A
   * GET never runs a mutation (GraphQL over HTTP); a subscription needs the WebSocket.
   */
  private prepare(request: GraphqlRequest, session: Session, transport: 'get' | 'http' | 'ws', record?: RequestRecord) {
    if (typeof request.query !== 'string' || request.query.trim() === '')
      throw new RequestError('bad-request', 'the request body needs a "query" string', '$.query', 400);
    checkRequestShape(request);
    const limits = this.config.limits;
    checkVariables(request.variables, limits.maxInputDepth);
    const role = this.schemaFor(session.role);
    const query = request.query;
    const lookup = () => this.documentFor(role, query);
    const entry = this.tracing.on ? this.tracing.spanSync('graphql.parse', {}, lookup, record?.span) : lookup();
    const operation = this.operationOf(entry, request.operationName);
    noteOperation(record, operation.node.name?.value, operation.node.operation);
    // Before the variables are even read.
    if (transport === 'get' && operation.node.operation !== 'query')
      throw new RequestError(
        'method-not-allowed',
        `a ${operation.node.operation} cannot be sent with GET: use POST`,
        '$.query',
        405,
      );
    const coerced = coerceVariables(
      role.schema,
      operation.node.variableDefinitions ?? [],
      (request.variables ?? {}) as Record<string, unknown>,
    );
    if (coerced.errors) throw new RequestError('validation-failed', coerced.errors[0].message, '$.variableValues');
    const vars = coerced.coerced;
    if (transport !== 'ws' && operation.node.operation === 'subscription')
      throw new RequestError(
        'not-supported',
        'subscriptions are not supported over HTTP: open a WebSocket on this endpoint (README "Subscriptions")',
        '$',
      );
    const planning = () => this.planFor(role, operation, entry, vars, record);
    const plan = this.tracing.on
      ? this.tracing.spanSync(
          'graphql.plan',
          { 'graphql.operation.type': operation.node.operation },
          planning,
          record?.span,
        )
      : planning();
    assertRuntimeChecks(plan.checks, vars, session);
    return { plan, vars };
  }

  /**
   * The plan of an operation for these variables' shape; SQL is generated once per shape. A list
   * the plan reads only whole (an insert's objects) is keyed without its count, so that inserting
   * ten objects and eleven share one plan; a plan that reads its items one by one holds the count.
   */
  private planFor(
    role: RoleSchema,
    operation: OperationEntry,
    entry: DocumentEntry,
    vars: Variables,
    record: RequestRecord | undefined,
  ): ExecutablePlan {
    const free = shapeKey(operation, vars, true);
    let key = free.key;
    let found = operation.plans.get(key);
    // A full key never starts a variable's part with `*`: it never holds COUNTED.
    if (found === COUNTED) found = operation.plans.get((key = shapeKey(operation, vars, false).key));
    const hit = found !== undefined && found !== COUNTED;
    this.metrics?.planCacheLookup(hit);
    if (record) record.planCache = hit ? 'hit' : 'miss';
    if (hit) return found as ExecutablePlan;
    const plan = compile(role, operation.node, entry.fragments, vars, this.config.limits, {
      stringifyNumeric: this.config.stringifyNumericTypes,
    });
    this.compilations++;
    // LOG_LEVEL=debug: the SQL each new plan runs ($n slots; the values are never logged).
    this.log({
      level: 'debug',
      msg: 'compiled',
      role: role.role,
      operation_name: operation.node.name?.value,
      sql: plannedSql(plan),
    });
    if (operation.plans.size >= PLANS_PER_OPERATION) operation.plans.clear();
    if (key === free.key && free.collapsed.some((name) => !plan.countFree.includes(name))) {
      operation.plans.set(key, COUNTED);
      key = shapeKey(operation, vars, false).key;
    }
    operation.plans.set(key, plan);
    return plan;
  }

  private async runGraphql(
    document: DocumentNode,
    role: RoleSchema,
    vars: Variables,
    ctx: ActionContext,
    /**
     * Whether the handlers run inside request-context with `ctx.record` (mutations: their audit events,
     * core/audit.ts, find the request there). Its AsyncLocalStorage puts a hook on every promise of the
     * process while any request is inside it (4-5 µs of a 120 µs `_v2` query, and more GC); queries'
     * handlers record no audit events, and their spans take the request from `ctx.record`.
     */
    inRequest: boolean,
  ): Promise<Record<string, unknown>> {
    const direct = directField(role.schema, document, this.resolveAction as never);
    const run = async (): Promise<ExecutionResult> => {
      const args = { schema: role.schema, document, variableValues: vars, contextValue: ctx };
      if (!direct) return execute(args);
      const out = await runDirect(direct, vars, ctx);
      // An answer only graphql-js completes: it gets the handler's answer, not another call.
      return 'resolved' in out ? execute({ ...args, rootValue: { [RESOLVED]: out.resolved } }) : out;
    };
    const result = inRequest && ctx.record ? await withRequest(ctx.record, run) : await run();
    const original = result.errors?.[0]?.originalError;
    if (original instanceof RequestError || isInternalDbError(original)) throw original;
    if (result.errors?.length)
      throw new RequestError(
        'action-error',
        result.errors[0].message,
        `$.selectionSet.${result.errors[0].path?.join('.') ?? ''}`,
      );
    return (result.data ?? {}) as Record<string, unknown>;
  }

  /**
   * The query's statements, one after the other, each checked against the request's bytes and rows
   * as soon as it answers: the request stops at the first past a limit. Each answer's rows are
   * counted by its fields' shapes.
   */
  private async runStatements(
    plan: ExecutablePlan,
    vars: Variables,
    session: Session,
    budget: RequestBudget,
    reader: Queryable,
  ) {
    const rows: Record<string, unknown>[] = [];
    for (let i = 0; i < plan.queries.length; i++) {
      const query = plan.queries[i];
      const bound = bindParams(query.params, vars, session);
      const row = await budget.answer(query.text, async (allowed) => {
        // Its last placeholder is the bytes its answer may have.
        bound.push(String(allowed));
        const r = await this.answerRow(reader, query, bound, budget);
        return { row: r, bytes: Number(r.__bytes) };
      });
      budget.checkTime();
      for (const f of plan.fields)
        if (f.from === 'query' && f.statement === i)
          budget.addRows(f.rowsColumn ? Number(row[f.rowsColumn]) : countRows(String(row[f.column]), f.rows).rows);
      rows.push(row);
    }
    return rows;
  }

  private async runQuery(
    plan: ExecutablePlan,
    vars: Variables,
    session: Session,
    budget: RequestBudget,
    reader: Queryable,
    safeMethod = false,
  ): Promise<EngineResponse> {
    let rows: Record<string, unknown>[];
    let other: Record<string, unknown> = {};
    if (!plan.graphql) rows = await this.runStatements(plan, vars, session, budget, reader);
    else {
      const role = this.schemaFor(session.role);
      const ctx = safeMethod
        ? this.safeActionContext(session, budget.record)
        : this.actionContext(session, undefined, budget.record);
      // A query's handlers record no audit events: they need not find the request (see runGraphql).
      // Action fields alone (an analytic operation) have no statement to run beside them.
      [rows, other] =
        plan.queries.length === 0
          ? [[], await this.runGraphql(plan.graphql, role, vars, ctx, false)]
          : await Promise.all([
              this.runStatements(plan, vars, session, budget, reader),
              this.runGraphql(plan.graphql, role, vars, ctx, false),
            ]);
    }
    budget.checkTime();
    const pieces: string[] = [];
    plan.fields.forEach((f, i) => {
      let value: string;
      if (f.from === 'query') value = (rows[f.statement][f.column] as string | null) ?? 'null';
      else {
        value = answerJson(other[f.alias]);
        budget.addBytes(Buffer.byteLength(value));
      }
      pieces.push(`${i === 0 ? '{"data":{' : ','}${JSON.stringify(f.alias)}:`, value);
    });
    pieces.push(plan.fields.length === 0 ? '{"data":{}}' : '}}');
    return new DataAnswer(pieces);
  }

  /** The context of action handlers: outside a transaction, or inside `tx` (the request's). */
  private actionContext(session: Session, tx?: Queryable, record?: RequestRecord): ActionContext {
    const config = this.actions.config;
    const writers = {
      allowed: session.role === ADMIN_ROLE || this.writers.includes(session.role),
      roles: this.writers,
    };
    if (tx) return { db: tx, session, config, writers, transaction: (fn) => fn(tx), record };
    const read = this.read;
    return { db: this.db, session, config, writers, transaction: (fn) => this.db.transaction(fn), record, read };
  }

  /**
   * A handler's read outside a transaction: coalesced with the same read of other requests of this
   * turn (coalesce.ts `rows`), or alone: with DATABASE_COALESCE=false, and when tracing is on.
   */
  private readonly read = (text: string, params: readonly Param[]): Promise<Row[]> =>
    this.coalescing
      ? this.coalescer.rows(this.db, text, params)
      : readAgainOnFailure(() => this.db.query(text, params));

  /**
   * The context of a GET request's actions: a query's handlers that write or spend refuse
   * (actions/api.ts `refuseReadOnly` reads `safeMethod`), and should one write all the same, the
   * database refuses it: each of its statements, and each transaction it opens, is READ ONLY.
   */
  private safeActionContext(session: Session, record?: RequestRecord): ActionContext {
    const readOnly = <T>(fn: (tx: Queryable) => Promise<T>) =>
      this.db.transaction(async (tx) => {
        await tx.query('SET TRANSACTION READ ONLY');
        return fn(tx);
      });
    const db: Queryable = {
      query: (text, params, options) => readOnly((tx) => tx.query(text, params, options)),
      exec: (script) => readOnly((tx) => tx.exec(script)),
    };
    const base = this.actionContext(session, undefined, record);
    // As for a read-only role: what a handler keeps for those (a stored analysis) is what a GET gets.
    const writers = { ...base.writers, allowed: false };
    // Every statement of a GET is READ ONLY: its reads too, which are then not coalesced.
    return { ...base, db, transaction: readOnly, writers, safeMethod: true, read: undefined };
  }

  private async runMutation(
    plan: ExecutablePlan,
    vars: Variables,
    session: Session,
    budget: RequestBudget,
  ): Promise<EngineResponse> {
    // One change alone needs no transaction of the engine's: its statement is one (and refuses by
    // failing), which saves the round trips of BEGIN and COMMIT. Not behind a pooler in transaction
    // mode, where STATEMENT_TIMEOUT_MS holds only inside the engine's transactions (SET LOCAL).
    const [only] = plan.steps;
    if (plan.steps.length === 1 && only.kind === 'sql' && only.lone && !this.config.pooler.transactionMode) {
      const part = await this.runLone(only.lone, only.alias, vars, session, budget);
      if (part !== undefined) return { status: 200, body: `{"data":{${part}}}` };
    }
    // Table changes and the actions beside them stand or fall together, in one transaction. Actions
    // alone need none of the engine's: each handler opens its own around its writes, so that a slow
    // call to another service holds no connection (on PGlite: the only one).
    const parts = plan.steps.every((step) => step.kind === 'graphql')
      ? await this.runSteps(plan, vars, session, budget)
      : await this.db.transaction((tx: Queryable) => this.runSteps(plan, vars, session, budget, tx));
    return { status: 200, body: `{"data":{${parts.join(',')}}}` };
  }

  /**
   * A mutation of one change as one statement outside a transaction (mutation.ts loneSql): a refusal
   * (its check, its answer's size) comes as the statement's failure, which has undone the change. The
   * deadline cancels the statement; once it has committed, its answer is given whatever the time.
   * Undefined when its check refused: the caller runs the change again in a transaction, where a
   * constraint the row breaks (checked as the statement ends, after the refusal) is told first, as
   * it always was.
   */
  private async runLone(
    lone: LoneStatement,
    alias: string,
    vars: Variables,
    session: Session,
    budget: RequestBudget,
  ): Promise<string | undefined> {
    budget.checkTime();
    const params = bindParams(lone.params, vars, session);
    let checkRefused = false;
    const run = budget.answer(lone.text, async (allowed) => {
      try {
        const row = await this.loneRow(lone, [...params, String(allowed)], budget);
        const value = (row.out as string | null) ?? 'null';
        return { row: value, bytes: Buffer.byteLength(value) };
      } catch (err) {
        const refusal = loneRefusal(err);
        checkRefused = refusal === 'check';
        // Counted as it would have been, so that the budget tells too large from busy.
        if (typeof refusal === 'number') return { row: 'null', bytes: refusal };
        // Thrown, so that the budget neither counts nor remembers an answer that was not given.
        throw err;
      }
    });
    const out = await run.catch((err: unknown) => {
      if (checkRefused) return undefined;
      throw err;
    });
    return out === undefined ? undefined : `${JSON.stringify(alias)}:${out}`;
  }

  /**
   * A lone mutation statement's row: with the same insert of other requests of this turn when it has a
   * batch (coalesce.ts `change`), else alone; alone too with DATABASE_COALESCE=false or tracing on.
   */
  private loneRow(lone: LoneStatement, params: Param[], budget: RequestBudget): Promise<Row> {
    if (lone.batch && this.coalescing) return this.coalescer.change(this.db, lone, params, budget.signal);
    return this.query(this.db, lone.text, params, budget).then((rows) => rows[0]);
  }

  /** One mutation statement (and its output statement): the field's JSON, or the refusal of its checks. */
  private async runSql(
    step: { statement: Statement; output?: OutputStatement },
    alias: string,
    vars: Variables,
    session: Session,
    tx: Queryable,
    budget: RequestBudget,
  ): Promise<string> {
    const refused = (path = `$.selectionSet.${alias}`) =>
      new RequestError('permission-error', 'check constraint of an insert/update permission has failed', path);
    const params = bindParams(step.statement.params, vars, session);
    const [row] = step.statement.genericPlan
      ? await withGenericPlan(tx, () => this.query(tx, step.statement.text, params, budget))
      : await this.query(tx, step.statement.text, params, budget);
    if (row.ok === false || row.ok === 'f') throw refused();
    if (typeof row.empty === 'string') {
      // A nested insert's object relationship wrote no row (an upsert that did nothing), as Hasura says.
      const [path, message] = JSON.parse(row.empty) as [string, string];
      throw new RequestError('not-supported', message, path);
    }
    if (!step.output) return (row.out as string | null) ?? 'null';
    const [o] = await this.query(tx, step.output.text, bindOutputParams(step.output, row.rows, vars, session), budget);
    // A nested insert checks each table's insert permission in the output statement, which sees every
    // row; its refusal statement then names the rows refused.
    if (o.ok === false || o.ok === 'f') {
      const refusal = step.output.refusal;
      if (!refusal) throw refused();
      const refusalParams = bindOutputParams(refusal, row.rows, vars, session);
      const [r] = await tx.query(refusal.text, refusalParams, { signal: budget.signal });
      throw refused(typeof r.refused === 'string' ? r.refused : undefined);
    }
    return (o.out as string | null) ?? 'null';
  }

  /**
   * Each root field of a mutation in document order, as `"alias":json`; SQL steps need `tx`. Past the
   * deadline or the response size it throws, which rolls the transaction back: nothing half-written.
   * Without a transaction (actions only) nothing is checked once the first step has begun.
   */
  private async runSteps(
    plan: ExecutablePlan,
    vars: Variables,
    session: Session,
    budget: RequestBudget,
    tx?: Queryable,
  ): Promise<string[]> {
    const role = this.schemaFor(session.role);
    const out: string[] = [];
    budget.checkTime();
    for (const step of plan.steps) {
      let value: string;
      if (step.kind === 'sql') value = await this.runSql(step, step.alias, vars, session, tx!, budget);
      else if (step.kind === 'sqlList') {
        // update_T_many: one statement per update, in order, each seeing the ones before.
        const values: string[] = [];
        for (const item of step.items) values.push(await this.runSql(item, step.alias, vars, session, tx!, budget));
        value = `[${values.join(',')}]`;
      } else {
        const ctx = this.actionContext(session, tx, budget.record);
        const data = await this.runGraphql(step.document, role, vars, ctx, true);
        value = answerJson(data[step.alias]);
      }
      // Actions alone commit as each handler ends: their answer is given whatever the time or size.
      if (tx) {
        budget.checkTime();
        budget.addBytes(Buffer.byteLength(value));
      }
      out.push(`${JSON.stringify(step.alias)}:${value}`);
    }
    return out;
  }

  /** A RequestError's answer; a passing condition (database down or busy) says when to retry, and is logged. */
  private requestFailure(err: RequestError, session?: Session): EngineResponse {
    if (err.code === 'database-unavailable' || err.code === 'busy') this.metrics?.databaseError(err.code);
    if (err.internal) this.log({ level: 'error', msg: err.message, code: err.code, error: err.internal });
    const internal = session?.isAdmin && err.internal ? { error: err.internal } : undefined;
    return {
      status: err.status,
      body: errorBody([{ message: err.message, code: err.code, path: err.path, internal }]),
      headers: err.retryAfterSeconds ? { 'retry-after': String(err.retryAfterSeconds) } : undefined,
      code: err.code,
    };
  }

  /**
   * Maps any failure to Hasura's error shape; internal details only for admin-secret callers. The
   * request's first error code goes to its record, for its access line and metrics.
   */
  failure(err: unknown, session?: Session, record?: RequestRecord): EngineResponse {
    const response = this.failureOf(err, session);
    if (record && !record.errorCode) record.errorCode = response.code;
    return response;
  }

  private failureOf(err: unknown, session?: Session): EngineResponse {
    err = asUnavailable(err);
    if (err instanceof RequestError) return this.requestFailure(err, session);
    const db = asDbError(err);
    if (db) {
      const code = expectedDbErrorCode(db.code!);
      this.metrics?.databaseError(db.code!);
      if (code) return { status: 200, body: errorBody([{ message: db.message, code, path: '$' }]), code };
      this.log({ level: 'error', msg: 'database error', code: db.code, error: db.message });
      const message =
        db.code === QUERY_CANCELED
          ? 'the query took longer than the statement timeout'
          : session?.isAdmin
            ? db.message
            : 'database query error';
      return {
        status: 200,
        code: 'postgres-error',
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
      code: 'unexpected',
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
