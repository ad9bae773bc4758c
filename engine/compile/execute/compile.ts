import type { DocumentNode, FragmentDefinitionNode, OperationDefinitionNode } from 'graphql';
import type { RuntimeCheck } from '../plan/context';
import type { RootField } from '../plan/ir';
import { graphqlOnlyDocument, planOperation, type GraphqlRootField } from '../plan/plan-operation';
import type { Variables } from '../plan/values';
import type { RoleSchema } from '../schema/role-schema';
import { mutationStatement } from '../sql/mutation';
import { queryStatement } from '../sql/query';
import type { JsonOutput, ParamSlot } from '../sql/writer';

export interface Statement {
  text: string;
  params: ParamSlot[];
  /** Run with a generic plan (see the engine's withGenericPlan): a nested insert's many-valued statement. */
  genericPlan?: boolean;
}

/** Where each response key's value comes from when the plan runs. */
export type ResponseField = { alias: string; from: 'query'; column: string } | { alias: string; from: 'graphql' };

/** A mutation's second statement: the plan's values in `params`, the changed rows at `rowsParam`. */
export interface OutputStatement extends Statement {
  rowsParam: number;
  /** Run when the output's `ok` is false, over the same rows: `refused`, the path of the rows refused. */
  refusal?: OutputStatement;
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
  /** All table fields of a query, one statement. */
  query?: Statement;
  /** The query's action and introspection fields, for graphql-js. */
  graphql?: DocumentNode;
  steps: MutationStep[];
  checks: RuntimeCheck[];
}

const isRead = (
  f: RootField | GraphqlRootField,
): f is Extract<RootField, { kind: 'select' | 'selectByPk' | 'aggregate' }> =>
  f.kind === 'select' || f.kind === 'selectByPk' || f.kind === 'aggregate';

function outputStatement(o: NonNullable<ReturnType<typeof mutationStatement>['output']>): OutputStatement {
  const refusal = o.refusal && outputStatement(o.refusal);
  return { text: o.text, params: o.writer.params, rowsParam: o.rowsParam, ...(refusal ? { refusal } : {}) };
}

/** One mutation field's statement, and its output statement when it has one. */
function sqlStep(
  f: Extract<RootField, { kind: 'insert' | 'update' | 'delete' }>,
  json: JsonOutput,
): { statement: Statement; output?: OutputStatement } {
  const s = mutationStatement(f, json);
  const output = s.output && outputStatement(s.output);
  const generic = f.kind === 'insert' && !!f.nested;
  return { statement: { text: s.text, params: s.writer.params, ...(generic ? { genericPlan: true } : {}) }, output };
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
    plan.query = { text: s.text, params: s.writer.params };
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
    isRead(f) ? { alias: f.alias, from: 'query', column: `f${column++}` } : { alias: f.alias, from: 'graphql' },
  );
  return plan;
}
