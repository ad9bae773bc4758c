import type { DocumentNode, FragmentDefinitionNode, OperationDefinitionNode } from 'graphql';
import type { RuntimeCheck } from '../plan/context';
import type { AggregateField, Field, RootField, RowSource, ValueSource } from '../plan/ir';
import { graphqlOnlyDocument, planOperation, type GraphqlRootField } from '../plan/plan-operation';
import type { Variables } from '../plan/values';
import type { RoleSchema } from '../schema/role-schema';
import { mutationStatement, type BatchedChange } from '../sql/mutation';
import { queryStatement } from '../sql/query';
import type { JsonOutput, ParamSlot } from '../sql/writer';
import type { RowShape } from './request-budget';

export interface Statement {
  text: string;
  params: ParamSlot[];
  /** Run with a generic plan (see the engine's withGenericPlan): a nested insert's many-valued statement. */
  genericPlan?: boolean;
}

/** A mutation's lone statement (sql/mutation.ts `lone`), and its batch when requests may share one. */
export interface LoneStatement extends Statement {
  batch?: BatchedChange;
}

/** Where each response key's value comes from when the plan runs. */
export type ResponseField =
  /**
   * `statement`: which of the plan's query statements holds its column; `rowsColumn`: the statement's
   * column holding the field's row count, when PostgreSQL counts them.
   */
  | { alias: string; from: 'query'; statement: number; column: string; rows: RowShape; rowsColumn?: string }
  | { alias: string; from: 'graphql' };

/** A mutation's second statement: the plan's values in `params`, the changed rows at `rowsParam`. */
export interface OutputStatement extends Statement {
  rowsParam: number;
  /** Run when the output's `ok` is false, over the same rows: `refused`, the path of the rows refused. */
  refusal?: OutputStatement;
}

/** Mutations run one step at a time, in document order, in one transaction. */
export type MutationStep =
  /**
   * `lone`: the statement that may run outside a transaction when it is the mutation's only step;
   * its `batch`, that statement for many requests at once (coalesce.ts `change`).
   */
  | { kind: 'sql'; alias: string; statement: Statement; output?: OutputStatement; lone?: LoneStatement }
  /** update_T_many: its updates' statements, run in order; the answer is the list of their outputs. */
  | { kind: 'sqlList'; alias: string; items: { statement: Statement; output?: OutputStatement }[] }
  | { kind: 'graphql'; alias: string; document: DocumentNode };

export interface ExecutablePlan {
  /** A subscription's plan is that of a query of its one root field. */
  operation: 'query' | 'mutation' | 'subscription';
  fields: ResponseField[];
  /**
   * The table fields of a query: one statement for all, or one per field when together they may
   * return more rows than MAX_TOTAL_ROWS (see `rowBound`), so that the request can stop at the field
   * that passes it. The last placeholder (`bytesParam`) of each takes the bytes the request may still
   * answer: a larger answer comes back as NULL fields and its size (`__bytes`).
   */
  queries: (Statement & { bytesParam: number })[];
  /** A subscription of T_stream: where its cursor starts (plan-stream.ts). */
  stream?: { initial: ValueSource };
  /** The query's action and introspection fields, for graphql-js. */
  graphql?: DocumentNode;
  steps: MutationStep[];
  checks: RuntimeCheck[];
  /**
   * The list variables this plan serves for any number of items (two or more): each is read only
   * whole, as an insert's rows. The engine keys such a plan by the items' shape without their count.
   */
  countFree: readonly string[];
}

const isRead = (
  f: RootField | GraphqlRootField,
): f is Extract<RootField, { kind: 'select' | 'selectByPk' | 'aggregate' }> =>
  f.kind === 'select' || f.kind === 'selectByPk' || f.kind === 'aggregate';

function outputStatement(o: NonNullable<ReturnType<typeof mutationStatement>['output']>): OutputStatement {
  const refusal = o.refusal && outputStatement(o.refusal);
  return { text: o.text, params: o.writer.params, rowsParam: o.rowsParam, ...(refusal ? { refusal } : {}) };
}

/**
 * Where the rows are in the JSON of a row's fields: its list relationships, and the object
 * relationships and aggregates with lists under them. A part without rows is left out, so that
 * counting never reads it.
 */
function fieldsShape(fields: Field[]): Map<string, RowShape> {
  const out = new Map<string, RowShape>();
  const add = (alias: string, shape: RowShape) => {
    if (shape.list || shape.children.size > 0) out.set(JSON.stringify(alias), shape);
  };
  for (const f of fields) {
    if (f.kind === 'array') add(f.alias, { list: true, children: fieldsShape(f.fields) });
    else if (f.kind === 'object') add(f.alias, { list: false, children: fieldsShape(f.fields) });
    else if (f.kind === 'arrayAggregate') add(f.alias, { list: false, children: aggregateShape(f.fields) });
  }
  return out;
}

/** An aggregate's rows are its `nodes`. */
function aggregateShape(fields: AggregateField[]): Map<string, RowShape> {
  const out = new Map<string, RowShape>();
  for (const f of fields)
    if (f.kind === 'nodes') out.set(JSON.stringify(f.alias), { list: true, children: fieldsShape(f.fields) });
  return out;
}

/** Most rows a RowSource gives: its cap, and its `limit` when written in the query. */
function rowCap(rows: RowSource): number {
  const given = rows.limit?.source.from === 'literal' ? Number(rows.limit.source.value) : Infinity;
  return Math.min(rows.maxRows ?? Infinity, Number.isFinite(given) && given >= 0 ? given : Infinity);
}

/** Most rows under one row with these fields: its list relationships and their own, multiplied out. */
function rowsUnder(fields: Field[]): number {
  let n = 0;
  for (const f of fields) {
    if (f.kind === 'array') n += rowCap(f.rows) * (1 + rowsUnder(f.fields));
    else if (f.kind === 'object') n += rowsUnder(f.fields);
    else if (f.kind === 'arrayAggregate') n += aggregateRows(f.rows, f.fields);
  }
  return n;
}

function aggregateRows(rows: RowSource, fields: AggregateField[]): number {
  let n = 0;
  for (const f of fields) if (f.kind === 'nodes') n += rowCap(rows) * (1 + rowsUnder(f.fields));
  return n;
}

/** Most rows a read field can return, known at plan time (Infinity when uncapped). */
function rowBound(f: Extract<RootField, { kind: 'select' | 'selectByPk' | 'aggregate' }>): number {
  if (f.kind === 'select') return rowCap(f.rows) * (1 + rowsUnder(f.fields));
  if (f.kind === 'aggregate') return aggregateRows(f.rows, f.fields);
  return rowsUnder(f.fields);
}

function rowShape(f: Extract<RootField, { kind: 'select' | 'selectByPk' | 'aggregate' }>): RowShape {
  if (f.kind === 'select') return { list: true, children: fieldsShape(f.fields) };
  if (f.kind === 'aggregate') return { list: false, children: aggregateShape(f.fields) };
  return { list: false, children: fieldsShape(f.fields) };
}

/** One mutation field's statement, and its output statement when it has one. */
function sqlStep(
  f: Extract<RootField, { kind: 'insert' | 'update' | 'delete' }>,
  json: JsonOutput,
): { statement: Statement; output?: OutputStatement; lone?: LoneStatement } {
  const s = mutationStatement(f, json);
  const output = s.output && outputStatement(s.output);
  const generic = f.kind === 'insert' && !!f.nested;
  const lone = s.lone && {
    text: s.lone.text,
    params: s.writer.params,
    ...(s.lone.batch ? { batch: s.lone.batch } : {}),
  };
  return {
    statement: { text: s.text, params: s.writer.params, ...(generic ? { genericPlan: true } : {}) },
    output,
    ...(lone ? { lone } : {}),
  };
}

/** A mutation's steps, one per root field in document order. */
function mutationPlan(
  plan: ExecutablePlan,
  fields: (RootField | GraphqlRootField)[],
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
  json: JsonOutput,
): ExecutablePlan {
  for (const f of fields) {
    if (f.kind === 'graphql')
      plan.steps.push({
        kind: 'graphql',
        alias: f.alias,
        document: graphqlOnlyDocument(operation, fragments, f.nodes),
      });
    else if (f.kind === 'updateMany')
      plan.steps.push({ kind: 'sqlList', alias: f.alias, items: f.updates.map((u) => sqlStep(u, json)) });
    else if (f.kind === 'insert' || f.kind === 'update' || f.kind === 'delete')
      plan.steps.push({ kind: 'sql', alias: f.alias, ...sqlStep(f, json) });
  }
  plan.countFree = countFreeVariables(plan);
  return plan;
}

/** GraphQL operation -> IR -> SQL text, once per (role, document, operation, variable shape). */
export function compile(
  role: RoleSchema,
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
  variables: Variables,
  limits: { maxRows: number; maxDepth: number; maxTotalRows?: number },
  json: JsonOutput = {},
): ExecutablePlan {
  const { maxRows, maxDepth } = limits;
  const ir = planOperation({ role, operation, fragments, variables, maxRows, maxDepth });
  const plan: ExecutablePlan = {
    operation: ir.operation,
    fields: [],
    queries: [],
    steps: [],
    checks: ir.checks,
    countFree: [],
  };
  if (ir.operation === 'mutation') return mutationPlan(plan, ir.fields, operation, fragments, json);
  const reads = ir.fields.filter(isRead);
  for (const f of reads) if (f.kind === 'select' && f.stream) plan.stream = f.stream;
  const bound = reads.reduce((n, f) => n + rowBound(f), 0);
  // An alias bomb (many capped lists) runs field by field and stops at the one past the limit.
  const split = reads.length > 1 && bound > (limits.maxTotalRows ?? Infinity);
  const groups = split ? reads.map((f) => [f]) : reads.length ? [reads] : [];
  const rowsColumns: (string | undefined)[] = [];
  for (const group of groups) {
    const s = queryStatement(group, json);
    plan.queries.push({ text: s.text, params: s.writer.params, bytesParam: s.bytesParam });
    rowsColumns.push(...s.rowsColumns);
  }
  const others = ir.fields.filter((f): f is GraphqlRootField => f.kind === 'graphql');
  if (others.length)
    plan.graphql = graphqlOnlyDocument(
      operation,
      fragments,
      others.flatMap((f) => f.nodes),
    );
  let read = 0;
  plan.fields = ir.fields.map((f): ResponseField => {
    if (!isRead(f)) return { alias: f.alias, from: 'graphql' };
    const i = read++;
    const at = split ? { statement: i, column: 'f0' } : { statement: 0, column: `f${i}` };
    const rowsColumn = rowsColumns[i];
    return { alias: f.alias, from: 'query', ...at, rows: rowShape(f), ...(rowsColumn ? { rowsColumn } : {}) };
  });
  return plan;
}

/** Every placeholder of a plan's statements: its queries', and each mutation step's with its output's. */
function planSlots(plan: ExecutablePlan): ParamSlot[] {
  const out: ParamSlot[] = [];
  const statement = (s: Statement | undefined) => s && out.push(...s.params);
  const output = (o: OutputStatement | undefined): void => {
    statement(o);
    if (o?.refusal) output(o.refusal);
  };
  for (const q of plan.queries) statement(q);
  for (const step of plan.steps) {
    const items = step.kind === 'sql' ? [step] : step.kind === 'sqlList' ? step.items : [];
    for (const item of items) {
      statement(item.statement);
      output(item.output);
    }
    if (step.kind === 'sql') statement(step.lone);
  }
  return out;
}

/** The variables a source reads inside of (an item, a key), which a value of another shape changes. */
function readInside(s: ValueSource, into: Set<string>): void {
  if (s.from === 'variable' && s.path.length > 0) into.add(s.name);
  else if (s.from === 'list') for (const i of s.items) readInside(i, into);
}

/**
 * The list variables the plan reads only whole, as an insert's rows (writer.ts `bindList`): the SQL
 * is then the same for any number of their items. A variable any other placeholder or check reads
 * an item of (a nested insert's rows, each with its own statement parts) is not among them, nor one
 * the plan never binds whole (objects of no keys, whose count is written into the SQL).
 */
function countFreeVariables(plan: ExecutablePlan): string[] {
  const whole = new Set<string>();
  const inside = new Set<string>();
  for (const slot of planSlots(plan)) {
    if (slot.wholeList && slot.source.from === 'variable') whole.add(slot.source.name);
    readInside(slot.source, inside);
  }
  for (const c of plan.checks) readInside(c.source, inside);
  return [...whole].filter((name) => !inside.has(name));
}
