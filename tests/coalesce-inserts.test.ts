import { DEMO } from '../demo/demo-data';
import type { Queryable } from '../engine/core/db/database';
import { Coalescer } from '../engine/compile/execute/coalesce';
import { backendName } from './support/database';
import { as, startTestServer, type GqlResult, type TestServer } from './support/server';

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

const INSERT_ONE = `mutation ($object: auto_playbook_insert_input!) {
  insert_auto_playbook_one(object: $object) { id name tenant_id }
}`;

interface Sent {
  headers: Record<string, string>;
  objects: { account_id: string; name: string | null; status: string }[];
  /** Sent as insert_auto_playbook_one's object (`objects` then holds it alone). */
  one?: boolean;
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
  const send = (r: Sent) =>
    r.one
      ? server.gql(INSERT_ONE, { object: r.objects[0] }, r.headers)
      : server.gql(INSERT, { objects: r.objects }, r.headers);
  const stored = async (prefix: string) =>
    server.started.db.query(
      `SELECT id::text, name, tenant_id::text AS tenant FROM auto_playbook WHERE name LIKE $1 ORDER BY name`,
      [`${prefix}%`],
    );

  /**
   * The requests `make` gives (their rows named with the attempt's `tag`) sent at once, checked by
   * `check`, until a turn's requests were batched (at most five attempts: on a busy machine the
   * requests may reach the engine one turn apart, and each then runs alone). Before each attempt, as
   * many requests at once of rows of no interest: they make the plan, and open the client's
   * connections (one per request, which connect one by one). Every attempt's answers are checked.
   */
  async function untilBatched(
    make: (tag: string) => Sent[],
    check: (requests: Sent[], answers: GqlResult[], tag: string) => Promise<void>,
  ) {
    for (let attempt = 0; attempt < 5; attempt++) {
      const tag = `${round++}`;
      const requests = make(tag);
      const warm = (r: Sent, i: number) => ({
        headers: acmeAdmin,
        objects: objects(acme.cloudAccounts.aws, `coalesce-warm-${tag}-${i}`, r.one ? 1 : 2),
        one: r.one,
      });
      await Promise.all(requests.map(warm).map(send));
      const before = { batches: coalescer().batches, coalesced: coalescer().coalesced };
      const answers = await Promise.all(requests.map(send));
      const ran = { batches: coalescer().batches - before.batches, requests: coalescer().coalesced - before.coalesced };
      await check(requests, answers, tag);
      if (ran.batches > 0) return ran;
    }
    return { batches: 0, requests: 0 };
  }

  test("each request's own rows and count, for two tenants; fewer statements than requests", async () => {
    const make = (tag: string): Sent[] => [
      { headers: acmeAdmin, objects: objects(acme.cloudAccounts.aws, `coalesce-a-1-${tag}`, 3) },
      { headers: globexAdmin, objects: objects(globex.cloudAccounts.aws, `coalesce-g-1-${tag}`, 1) },
      { headers: acmeAdmin, objects: [] },
      { headers: acmeAdmin, objects: objects(acme.cloudAccounts.aws, `coalesce-a-2-${tag}`, 2) },
      { headers: globexAdmin, objects: objects(globex.cloudAccounts.aws, `coalesce-g-2-${tag}`, 4) },
    ];
    const ran = await untilBatched(make, async (requests, answers) => {
      for (const [i, r] of requests.entries()) {
        const answer = answers[i].body.data.insert_auto_playbook;
        expect(answer.affected_rows).toBe(r.objects.length);
        // Its own rows, in the order it gave them, stored with its tenant.
        expect(answer.returning.map((row: { name: string }) => row.name)).toEqual(r.objects.map((o) => o.name));
        const rows = await stored((r.objects[0]?.name ?? 'no such name').replace(/-\d+$/, '-'));
        expect(rows.map((row) => row.id).sort()).toEqual(answer.returning.map((row: { id: string }) => row.id).sort());
        for (const row of rows) expect(row.tenant).toBe(r.headers['x-hasura-tenant-id']);
      }
    });
    expect(ran.batches).toBeGreaterThan(0);
    expect(ran.requests).toBeGreaterThan(ran.batches);
  });

  test('insert_T_one: each request its own row', async () => {
    const one = (headers: Record<string, string>, account: string, name: string): Sent => ({
      headers,
      objects: [{ account_id: account, name, status: 'DRAFT' }],
      one: true,
    });
    const make = (tag: string): Sent[] => [
      one(acmeAdmin, acme.cloudAccounts.aws, `coalesce-one-a-${tag}`),
      one(globexAdmin, globex.cloudAccounts.aws, `coalesce-one-g-${tag}`),
      one(acmeAdmin, acme.cloudAccounts.aws, `coalesce-one-b-${tag}`),
    ];
    const ran = await untilBatched(make, async (requests, answers) => {
      for (const [i, r] of requests.entries()) {
        const row = answers[i].body.data.insert_auto_playbook_one;
        expect(row).toMatchObject({ name: r.objects[0].name, tenant_id: r.headers['x-hasura-tenant-id'] });
        expect(await stored(r.objects[0].name!)).toEqual([{ id: row.id, name: row.name, tenant: row.tenant_id }]);
      }
    });
    expect(ran.batches).toBeGreaterThan(0);
  });

  test("a request refused by its check, or by a constraint, fails alone: the others' rows are written", async () => {
    const make = (tag: string): Sent[] => [
      { headers: acmeAdmin, objects: objects(acme.cloudAccounts.aws, `coalesce-ok-1-${tag}`, 2) },
      // Globex may not insert into Acme's account: the insert permission's check.
      { headers: globexAdmin, objects: objects(acme.cloudAccounts.aws, `coalesce-refused-${tag}`, 2) },
      // No name: the column's NOT NULL refuses it.
      { headers: acmeAdmin, objects: [{ account_id: acme.cloudAccounts.aws, name: null, status: 'DRAFT' }] },
      { headers: globexAdmin, objects: objects(globex.cloudAccounts.aws, `coalesce-ok-2-${tag}`, 3) },
    ];
    const alone = [];
    for (const r of make('alone').slice(1, 3)) alone.push(await send(r));
    expect(alone[0].body.errors[0].extensions.code).toBe('permission-error');
    expect(alone[1].body.errors[0].extensions.code).toBe('constraint-violation');
    const ran = await untilBatched(make, async (_, answers, tag) => {
      expect(answers[1].body).toEqual(alone[0].body);
      expect(answers[2].body).toEqual(alone[1].body);
      expect(await stored(`coalesce-refused-${tag}`)).toEqual([]);
      expect(answers[0].body.data.insert_auto_playbook.affected_rows).toBe(2);
      expect(answers[3].body.data.insert_auto_playbook.affected_rows).toBe(3);
      expect(await stored(`coalesce-ok-1-${tag}`)).toHaveLength(2);
      expect(await stored(`coalesce-ok-2-${tag}`)).toHaveLength(3);
    });
    expect(ran.batches).toBeGreaterThan(0);
  });
});

/**
 * What a batch of inserts does when its statement fails, shown with a runner of the test's own (the
 * database cannot be made to lose a connection or fail after some rows on cue): the batch is undone
 * as a whole, so no request is answered from it; each runs alone after a failure of the statement,
 * but not after a lost connection (the batch may have committed) nor a cancel.
 */
describe('a batch of inserts that fails', () => {
  const LONE = 'lone insert';
  const statement = { text: LONE, batch: { text: 'batch of inserts', cohortParams: 2 } };
  const writer: Queryable = { query: () => Promise.reject(new Error('not used')), exec: async () => undefined };

  /** A coalescer whose batch statement gives cohort 1's row, then fails with `failure`; alone, each answers `alone-<value>`. */
  function failing(failure: Record<string, unknown>) {
    const runs: string[] = [];
    const c = new Coalescer(async (_reader, text, params, _signal, onRow) => {
      runs.push(text);
      if (text === LONE) return [{ out: `alone-${String(params[0])}` }];
      onRow?.({ __cohort: '1', out: 'from the batch' });
      throw Object.assign(new Error('the batch failed'), failure);
    });
    const ask = (n: number) =>
      Promise.allSettled(Array.from({ length: n }, (_, i) => c.change(writer, statement, [String(i + 1), '1000'])));
    return { c, runs, ask };
  }

  test('by a value or a constraint: each request runs alone, none answered from the batch', async () => {
    const { c, runs, ask } = failing({ code: '23505' });
    const outcomes = await ask(3);
    expect(c.batches).toBe(1);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value.out : o.reason))).toEqual([
      'alone-1',
      'alone-2',
      'alone-3',
    ]);
    expect(runs).toEqual(['batch of inserts', LONE, LONE, LONE]);
  });

  test.each([
    ['a lost connection', { code: 'CONNECTION_CLOSED' }],
    ['a cancel', { code: '57014' }],
  ])('by %s: every request fails, none is run again', async (_, failure) => {
    const { runs, ask } = failing(failure);
    const outcomes = await ask(3);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const o of outcomes) expect((o as PromiseRejectedResult).reason).toMatchObject(failure);
    expect(runs).toEqual(['batch of inserts']);
  });

  test('a text PostgreSQL refuses: run alone, and never batched again', async () => {
    const { c, runs, ask } = failing({ code: '42703' });
    await ask(2);
    await ask(2);
    expect(c.batches).toBe(1);
    expect(runs).toEqual(['batch of inserts', LONE, LONE, LONE, LONE]);
  });
});
