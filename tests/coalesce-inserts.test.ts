import { DEMO } from '../demo/demo-data';
import { backendName } from './support/database';
import { as, startTestServer, type TestServer } from './support/server';

/**
 * Inserts of concurrent requests, coalesced (engine/compile/execute/coalesce.ts `change`): the same
 * lone insert of requests in one turn runs as one statement (sql/mutation.ts batchedInsertSql). Each
 * request must get the answer it gets alone, its own rows and count, and its own error; a batch that
 * fails writes nothing, and each of its requests then runs alone.
 */
const acme = DEMO.tenants.acme;
const globex = DEMO.tenants.globex;
const acmeAdmin = as('tenant_admin', acme.id, acme.users.admin.id);
const globexAdmin = as('tenant_admin', globex.id, globex.users.admin.id);

const INSERT = `mutation ($objects: [auto_playbook_insert_input!]!) {
  insert_auto_playbook(objects: $objects) { affected_rows returning { id name status account_id } }
}`;

interface Sent {
  headers: Record<string, string>;
  objects: { account_id: string; name: string | null; status: string }[];
}

const objects = (account: string, prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ account_id: account, name: `${prefix}-${i + 1}`, status: 'DRAFT' }));

describe(`inserts of concurrent requests, coalesced, on ${backendName}`, () => {
  let server: TestServer;
  let round = 0;
  beforeAll(async () => {
    // One connection, as PGlite has: requests at once are batched, however few.
    server = await startTestServer({ env: { DATABASE_POOL_SIZE: '1' } });
  });
  afterAll(() => server.close());

  const coalescer = () => server.started.engine.coalescer;
  const send = (r: Sent) => server.gql(INSERT, { objects: r.objects }, r.headers);
  const stored = async (prefix: string) =>
    server.started.db.query(
      `SELECT id::text, name, tenant_id::text AS tenant FROM auto_playbook WHERE name LIKE $1 ORDER BY name`,
      [`${prefix}%`],
    );

  /**
   * The requests sent at once, with the statements they ran as. Before them, as many requests at once
   * of rows of no interest: they make the plan, and open the client's connections (one per request,
   * which connect one by one).
   */
  async function atOnce(requests: Sent[]) {
    const warm = (_: Sent, i: number) => ({
      headers: acmeAdmin,
      objects: objects(acme.cloudAccounts.aws, `coalesce-warm-${round}-${i}`, 2),
    });
    round++;
    await Promise.all(requests.map(warm).map(send));
    const before = { batches: coalescer().batches, coalesced: coalescer().coalesced };
    const answers = await Promise.all(requests.map(send));
    return {
      answers,
      ran: { batches: coalescer().batches - before.batches, requests: coalescer().coalesced - before.coalesced },
    };
  }

  test("each request's own rows and count, for two tenants; fewer statements than requests", async () => {
    const requests: Sent[] = [
      { headers: acmeAdmin, objects: objects(acme.cloudAccounts.aws, 'coalesce-a-1', 3) },
      { headers: globexAdmin, objects: objects(globex.cloudAccounts.aws, 'coalesce-g-1', 1) },
      { headers: acmeAdmin, objects: [] },
      { headers: acmeAdmin, objects: objects(acme.cloudAccounts.aws, 'coalesce-a-2', 2) },
      { headers: globexAdmin, objects: objects(globex.cloudAccounts.aws, 'coalesce-g-2', 4) },
    ];
    const { answers, ran } = await atOnce(requests);
    expect(ran.batches).toBeGreaterThan(0);
    expect(ran.requests).toBeGreaterThan(ran.batches);
    for (const [i, r] of requests.entries()) {
      const answer = answers[i].body.data.insert_auto_playbook;
      expect(answer.affected_rows).toBe(r.objects.length);
      // Its own rows, in the order it gave them.
      expect(answer.returning.map((row: { name: string }) => row.name)).toEqual(r.objects.map((o) => o.name));
      const rows = await stored((r.objects[0]?.name ?? 'no such name').replace(/-\d+$/, '-'));
      expect(rows.map((row) => row.id).sort()).toEqual(answer.returning.map((row: { id: string }) => row.id).sort());
      for (const row of rows) expect(row.tenant).toBe(r.headers['x-hasura-tenant-id']);
    }
  });

  test("a request refused by its check, or by a constraint, fails alone: the others' rows are written", async () => {
    const requests: Sent[] = [
      { headers: acmeAdmin, objects: objects(acme.cloudAccounts.aws, 'coalesce-ok-1', 2) },
      // Globex may not insert into Acme's account: the insert permission's check.
      { headers: globexAdmin, objects: objects(acme.cloudAccounts.aws, 'coalesce-refused', 2) },
      // No name: the column's NOT NULL refuses it.
      { headers: acmeAdmin, objects: [{ account_id: acme.cloudAccounts.aws, name: null, status: 'DRAFT' }] },
      { headers: globexAdmin, objects: objects(globex.cloudAccounts.aws, 'coalesce-ok-2', 3) },
    ];
    const alone = [];
    for (const r of requests.slice(1, 3)) alone.push(await send({ ...r, objects: r.objects.map((o) => ({ ...o })) }));
    const { answers, ran } = await atOnce(requests);
    expect(ran.batches).toBeGreaterThan(0);
    expect(answers[1].body).toEqual(alone[0].body);
    expect(answers[1].body.errors[0].extensions.code).toBe('permission-error');
    expect(answers[2].body).toEqual(alone[1].body);
    expect(answers[2].body.errors[0].extensions.code).toBe('constraint-violation');
    expect(await stored('coalesce-refused')).toEqual([]);
    expect(answers[0].body.data.insert_auto_playbook.affected_rows).toBe(2);
    expect(answers[3].body.data.insert_auto_playbook.affected_rows).toBe(3);
    expect(await stored('coalesce-ok-1')).toHaveLength(2);
    expect(await stored('coalesce-ok-2')).toHaveLength(3);
  });
});
