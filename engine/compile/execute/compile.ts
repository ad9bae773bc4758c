import type { DocumentNode, FragmentDefinitionNode, OperationDefinitionNode } from 'graphql';
import type { RuntimeCheck } from '../plan/context';
import type { AggregateField, Field, RootField } from '../plan/ir';
import { graphqlOnlyDocument, planOperation, type GraphqlRootField } from '../plan/plan-operation';
import type { Variables } from '../plan/values';
import type { RoleSchema } from '../schema/role-schema';
import { mutationStatement } from '../sql/mutation';
import { queryStatement } from '../sql/query';
import type { JsonOutput, ParamSlot } from '../sql/writer';
import type { RowShape } from './request-budget';

export interface Statement {
  text: string;
  params: ParamSlot[];
}

/** Where each response key's value comes from when the plan runs. */
export type ResponseField =
  { alias: string; from: 'query'; column: string; rows: RowShape } | { alias: string; from: 'graphql' };

/** A mutation's second statement: the plan's values in `params`, the changed rows at `rowsParam`. */
export interface OutputStatement extends Statement {
  rowsParam: number;
}

/** Mutations run one step at a time, in document order, in one transaction. */
export type MutationStep =
  | { kind: 'sql'; alias: string; statement: Statement; output?: OutputStatement }
  /** update_T_many: its updates' statements, run in order; the answer is the list of their outputs. */
  | { kind: 'sqlList'; alias: string; items: { statement: Statement; output?: OutputStatement }[] }
  | { kind: 'graphql'; alias: string; document: DocumentNode };

export interface ExecutablePlan {
  operation: 'query' | 'mutation';
  fields: ResponseField[];
  /**
   * All table fields of a query, one statement. Its last placeholder (`bytesParam`) takes the bytes the
   * request may still answer: a larger answer comes back as NULL fields and its size (`__bytes`).
   */
  query?: Statement & { bytesParam: number };
  /** The query's action and introspection fields, for graphql-js. */
  graphql?: DocumentNode;
  steps: MutationStep[];
  checks: RuntimeCheck[];
}

const isRead = (
  f: RootField | GraphqlRootField,
): f is Extract<RootField, { kind: 'select' | 'selectByPk' | 'aggregate' }> =>
  f.kind === 'select' || f.kind === 'selectByPk' || f.kind === 'aggregate';

/** Where the rows are in the JSON of a row's fields: its list and object relationships. */
function fieldsShape(fields: Field[]): Map<string, RowShape> {
  const out = new Map<string, RowShape>();
  for (const f of fields) {
    if (f.kind === 'array') out.set(JSON.stringify(f.alias), { list: true, children: fieldsShape(f.fields) });
    else if (f.kind === 'object') out.set(JSON.stringify(f.alias), { list: false, children: fieldsShape(f.fields) });
    else if (f.kind === 'arrayAggregate')
      out.set(JSON.stringify(f.alias), { list: false, children: aggregateShape(f.fields) });
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

function rowShape(f: Extract<RootField, { kind: 'select' | 'selectByPk' | 'aggregate' }>): RowShape {
  if (f.kind === 'select') return { list: true, children: fieldsShape(f.fields) };
  if (f.kind === 'aggregate') return { list: false, children: aggregateShape(f.fields) };
  return { list: false, children: fieldsShape(f.fields) };
}

/** One mutation field's statement, and its output statement when it has one. */
function sqlStep(
  f: Extract<RootField, { kind: 'insert' | 'update' | 'delete' }>,
  json: JsonOutput,
): { statement: Statement; output?: OutputStatement } {
  const s = mutationStatement(f, json);
  const output = s.output && { text: s.output.text, params: s.output.writer.params, rowsParam: s.output.rowsParam };
  return { statement: { text: s.text, params: s.writer.params }, output };
}

/** GraphQL operation -> IR -> SQL text, once per (role, document, operation, variable shape). */
export function compile(
  role: RoleSchema,
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
  variables: Variables,
  limits: { maxRows: number; maxDepth: number },
  json: JsonOutput = {},
): ExecutablePlan {
  const ir = planOperation({ role, operation, fragments, variables, ...limits });
  const plan: ExecutablePlan = { operation: ir.operation, fields: [], steps: [], checks: ir.checks };
  if (ir.operation === 'mutation') {
    for (const f of ir.fields) {
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
    return plan;
  }
  const reads = ir.fields.filter(isRead);
  if (reads.length) {
    const s = queryStatement(reads, json);
    plan.query = { text: s.text, params: s.writer.params, bytesParam: s.bytesParam };
  }
  const others = ir.fields.filter((f): f is GraphqlRootField => f.kind === 'graphql');
  if (others.length)
    plan.graphql = graphqlOnlyDocument(
      operation,
      fragments,
      others.flatMap((f) => f.nodes),
    );
  let column = 0;
  plan.fields = ir.fields.map((f): ResponseField =>
    isRead(f)
      ? { alias: f.alias, from: 'query', column: `f${column++}`, rows: rowShape(f) }
      : { alias: f.alias, from: 'graphql' },
  );
  return plan;
}
