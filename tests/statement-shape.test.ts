import { startTestServer, type TestServer } from './support/server';

/**
 * What PostgreSQL does with the engine's statements, read from its plans: each field's answer is
 * built once. (The statement measures each answer's size before sending it: when PostgreSQL pulled
 * the subquery that builds the answer up into the outer SELECT, every reference to it became a copy,
 * and each table was read three times.)
 */
let t: TestServer;
const compiled: string[][] = [];

beforeAll(async () => {
  t = await startTestServer({
    log: (entry) => {
      if (entry.msg === 'compiled') compiled.push(entry.sql as string[]);
    },
  });
});

afterAll(() => t.close());

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

/** Every node of a plan, depth first. */
function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/** How often the plan of the engine's statement for `query` reads each table. */
async function tableReads(query: string): Promise<Record<string, number>> {
  compiled.length = 0;
  const r = await t.gql(query);
  expect(r.body.errors).toBeUndefined();
  expect(compiled).toHaveLength(1);
  const [statement] = compiled[0];
  // These queries have no values of their own: the one placeholder is the answer's byte limit.
  expect(statement).not.toContain('$2');
  const [row] = await t.started.db.query(`EXPLAIN (FORMAT JSON) ${statement}`, ['1000000']);
  const plan = (row['QUERY PLAN'] as { Plan: PlanNode }[])[0].Plan;
  const reads: Record<string, number> = {};
  for (const n of nodes(plan)) if (n['Relation Name']) reads[n['Relation Name']] = (reads[n['Relation Name']] ?? 0) + 1;
  return reads;
}

describe("the engine's statements build each field's answer once", () => {
  it('a list field reads its table once', async () => {
    expect(await tableReads('query A { cloud_accounts { id account_name } }')).toEqual({ cloud_accounts: 1 });
  });

  it('an aggregate field reads its table once', async () => {
    const reads = await tableReads('query B { spends_aggregate { aggregate { count sum { amount } } } }');
    expect(reads).toEqual({ spends: 1 });
  });

  it('a query of three fields reads each of their tables once', async () => {
    const reads = await tableReads(
      'query C { cloud_accounts { id } tenant { id } recommendation_aggregate { aggregate { count } } }',
    );
    expect(reads).toEqual({ cloud_accounts: 1, tenant: 1, recommendation: 1 });
  });
});
