import { DEMO } from '../demo/demo-data';
import { backendName } from './support/database';
import { ADMIN_SECRET, as, startTestServer, type TestServer } from './support/server';

/**
 * Tenant isolation with the platform's own metadata and the demo data: a tenant's roles see and
 * change only their tenant's rows, whichever way they ask. Every expectation is computed with SQL
 * written by hand here, never with the engine.
 */
const acme = DEMO.tenants.acme;
const globex = DEMO.tenants.globex;
const ADMIN = 'tenant_admin';
const READONLY = 'tenant_admin_readonly';

interface TenantTable {
  name: string;
  /** The ids of one tenant's rows ($1 is the tenant id). */
  idsOf: string;
  /** Primary key columns, the `_by_pk` arguments (all uuid). */
  pk: string[];
  /** The column that holds the tenant; it is set from the session and never part of an input. */
  tenantColumn?: string;
  /** A text column tenant_admin may update, for tables tenant_admin may write. */
  writable?: string;
}

const TABLES: TenantTable[] = [
  {
    name: 'cloud_accounts',
    idsOf: 'SELECT id::text AS id FROM cloud_accounts WHERE tenant = $1::uuid',
    pk: ['id'],
    tenantColumn: 'tenant',
    writable: 'account_name',
  },
  {
    name: 'spends',
    idsOf: 'SELECT id::text AS id FROM spends WHERE tenant = $1::uuid',
    pk: ['id'],
    tenantColumn: 'tenant',
    writable: 'unit',
  },
  {
    name: 'recommendation',
    idsOf: 'SELECT id::text AS id FROM recommendation WHERE tenant_id = $1::uuid',
    pk: ['id'],
    tenantColumn: 'tenant_id',
    writable: 'note',
  },
  {
    name: 'events',
    idsOf: 'SELECT id::text AS id FROM events WHERE tenant = $1::uuid',
    pk: ['id'],
    tenantColumn: 'tenant',
    writable: 'title',
  },
  {
    name: 'k8s_workloads',
    idsOf: 'SELECT id::text AS id FROM k8s_workloads WHERE tenant_id = $1::uuid',
    pk: ['cloud_account_id', 'cloud_resource_id', 'tenant_id'],
    tenantColumn: 'tenant_id',
    writable: 'name',
  },
  {
    name: 'auto_pilot',
    idsOf: 'SELECT id::text AS id FROM auto_pilot WHERE tenant_id = $1::uuid',
    pk: ['id'],
    tenantColumn: 'tenant_id',
    writable: 'name',
  },
  {
    name: 'cloud_resourses',
    idsOf: 'SELECT id::text AS id FROM cloud_resourses WHERE tenant = $1::uuid',
    pk: ['id'],
    tenantColumn: 'tenant',
    writable: 'name',
  },
  {
    name: 'tickets',
    idsOf: 'SELECT id::text AS id FROM tickets WHERE tenant = $1::uuid',
    pk: ['id'],
    tenantColumn: 'tenant',
    writable: 'title',
  },
  {
    name: 'users',
    idsOf:
      'SELECT u.id::text AS id FROM users u WHERE EXISTS (SELECT 1 FROM tenant_users tu WHERE tu."user" = u.id AND tu.tenant = $1::uuid)',
    pk: ['id'],
  },
  {
    name: 'tenant_users',
    idsOf: 'SELECT id::text AS id FROM tenant_users WHERE tenant = $1::uuid',
    pk: ['id'],
    tenantColumn: 'tenant',
  },
];
const WRITABLE = TABLES.filter((t) => t.writable);

const LOOKUP_TABLES = [
  'cloud_provider_type',
  'event_severity',
  'recommendation_status_type',
  'ticket_tool_types',
  'user_status_type',
];

describe(`tenant isolation on ${backendName}`, () => {
  let server: TestServer;
  const sql = (text: string, params: (string | null)[] = []) => server.started.db.query(text, params);
  const idsOf = async (t: TenantTable, tenant: string) =>
    (await sql(t.idsOf, [tenant])).map((r) => String(r.id)).sort();
  /** The primary key values of one row of `tenant`, by column name. */
  const pkOfOneRow = async (t: TenantTable, tenant: string) => {
    const [row] = await sql(
      `SELECT ${t.pk.map((c) => `${c}::text AS ${c}`).join(', ')} FROM ${t.name} WHERE id::text IN (${t.idsOf}) ORDER BY id LIMIT 1`,
      [tenant],
    );
    return row as Record<string, string>;
  };
  const pkVariables = (t: TenantTable) => t.pk.map((c) => `$${c}: uuid!`).join(', ');
  const pkArguments = (t: TenantTable) => t.pk.map((c) => `${c}: $${c}`).join(', ');
  const ok = async (query: string, variables: Record<string, unknown> = {}, headers = as(ADMIN, acme.id)) => {
    const res = await server.gql(query, variables, headers);
    expect(res.body.errors).toBeUndefined();
    expect(res.status).toBe(200);
    return res.body.data;
  };

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  test('the demo data has rows of both tenants in every table checked here', async () => {
    for (const t of TABLES) {
      expect([t.name, (await idsOf(t, acme.id)).length > 0]).toEqual([t.name, true]);
      expect([t.name, (await idsOf(t, globex.id)).length > 0]).toEqual([t.name, true]);
    }
  });

  describe.each([ADMIN, READONLY])('%s of acme reads only acme rows', (role) => {
    const session = () => as(role, acme.id);

    test.each(TABLES.map((t) => [t.name, t]))('%s: the list holds exactly the acme ids', async (_name, t) => {
      const data = await ok(`{ rows: ${t.name} { id } }`, {}, session());
      expect(data.rows.map((r: { id: string }) => r.id).sort()).toEqual(await idsOf(t, acme.id));
    });

    test.each(TABLES.map((t) => [t.name, t]))('%s: _aggregate counts only acme rows', async (_name, t) => {
      const data = await ok(`{ agg: ${t.name}_aggregate { aggregate { count } } }`, {}, session());
      expect(data.agg.aggregate.count).toBe((await idsOf(t, acme.id)).length);
    });

    test.each(TABLES.map((t) => [t.name, t]))(
      '%s: _by_pk of a globex row is null, of an acme row is the row',
      async (_name, t) => {
        const query = `query(${pkVariables(t)}) { row: ${t.name}_by_pk(${pkArguments(t)}) { id } }`;
        expect((await ok(query, await pkOfOneRow(t, globex.id), session())).row).toBeNull();
        const own = await ok(query, await pkOfOneRow(t, acme.id), session());
        expect((await idsOf(t, acme.id)).includes(own.row.id)).toBe(true);
      },
    );
  });

  describe('nested relationships and relationship aggregates stay inside the tenant', () => {
    /** An acme recommendation that points at a globex account and resource, as a careless import could leave it. */
    const crossLinked = '11111111-00ff-4000-8000-000000000001';
    /** Alice, acme's admin, is also a member of globex. */
    const aliceInGlobex = '22222222-00ff-4000-8000-000000000001';

    beforeAll(async () => {
      const [resource] = await sql(
        'SELECT id::text AS id FROM cloud_resourses WHERE tenant = $1::uuid ORDER BY id LIMIT 1',
        [globex.id],
      );
      await sql(
        `INSERT INTO recommendation (id, tenant_id, cloud_account_id, resource_id, recommendation_action, recommendation, status)
         VALUES ($1::uuid, $2::uuid, $3::uuid, $4::uuid, 'Modify', '{}'::jsonb, 'Open')`,
        [crossLinked, acme.id, globex.cloudAccounts.aws, String(resource.id)],
      );
      await sql(
        `INSERT INTO tenant_users (id, tenant, "user", created_by, updated_by) VALUES ($1::uuid, $2::uuid, $3::uuid, $3::uuid, $3::uuid)`,
        [aliceInGlobex, globex.id, acme.users.admin.id],
      );
    });

    test('cloud_accounts { spends_aggregate } sums each acme account as SQL does', async () => {
      const data = await ok(
        '{ cloud_accounts(order_by: {id: asc}) { id spends_aggregate { aggregate { count sum { amount } } } } }',
      );
      const expected = await sql(
        `SELECT a.id::text AS id, count(s.id)::int AS n, sum(s.amount) AS total
           FROM cloud_accounts a LEFT JOIN spends s ON s.cloud_account = a.id
          WHERE a.tenant = $1::uuid GROUP BY a.id ORDER BY a.id`,
        [acme.id],
      );
      expect(data.cloud_accounts.map((a: { id: string }) => a.id)).toEqual(expected.map((r) => r.id));
      data.cloud_accounts.forEach(
        (a: { spends_aggregate: { aggregate: { count: number; sum: { amount: number } } } }, i: number) => {
          expect(a.spends_aggregate.aggregate.count).toBe(expected[i].n);
          expect(a.spends_aggregate.aggregate.sum.amount).toBeCloseTo(Number(expected[i].total), 6);
        },
      );
    });

    test('recommendation { cloud_resourse cloud_account } is null where the target belongs to globex', async () => {
      const data = await ok('{ recommendation { id cloud_resourse { id tenant } cloud_account { id tenant } } }');
      const expected = await sql(
        `SELECT r.id::text AS id,
                (SELECT c.id::text FROM cloud_resourses c WHERE c.id = r.resource_id AND c.tenant = $1::uuid) AS resource,
                (SELECT a.id::text FROM cloud_accounts a WHERE a.id = r.cloud_account_id AND a.tenant = $1::uuid) AS account
           FROM recommendation r WHERE r.tenant_id = $1::uuid`,
        [acme.id],
      );
      const byId = new Map(expected.map((r) => [r.id, r]));
      expect(data.recommendation).toHaveLength(expected.length);
      for (const r of data.recommendation) {
        expect(r.cloud_resourse?.id ?? null).toBe(byId.get(r.id)!.resource);
        expect(r.cloud_account?.id ?? null).toBe(byId.get(r.id)!.account);
        if (r.cloud_resourse) expect(r.cloud_resourse.tenant).toBe(acme.id);
        if (r.cloud_account) expect(r.cloud_account.tenant).toBe(acme.id);
      }
      const crossed = data.recommendation.find((r: { id: string }) => r.id === crossLinked);
      expect(crossed).toEqual({ id: crossLinked, cloud_resourse: null, cloud_account: null });
    });

    test('users { tenant_users } lists only acme memberships of a user who is also in globex', async () => {
      const data = await ok(
        'query($id: uuid!) { users_by_pk(id: $id) { tenant_users { id tenant } tenant_users_aggregate { aggregate { count } } } }',
        { id: acme.users.admin.id },
      );
      const [expected] = await sql(
        'SELECT count(*)::int AS n FROM tenant_users WHERE "user" = $1::uuid AND tenant = $2::uuid',
        [acme.users.admin.id, acme.id],
      );
      expect(data.users_by_pk.tenant_users).toHaveLength(expected.n as number);
      expect(data.users_by_pk.tenant_users.every((m: { tenant: string }) => m.tenant === acme.id)).toBe(true);
      expect(data.users_by_pk.tenant_users_aggregate.aggregate.count).toBe(expected.n);
      const [all] = await sql('SELECT count(*)::int AS n FROM tenant_users WHERE "user" = $1::uuid', [
        acme.users.admin.id,
      ]);
      expect(all.n).toBe((expected.n as number) + 1);
    });

    test('tenant { cloud_accounts_aggregate recommendations_aggregate } counts acme rows only', async () => {
      const data = await ok(
        '{ tenant { id cloud_accounts_aggregate { aggregate { count } } recommendations_aggregate { aggregate { count } } } }',
      );
      const [counts] = await sql(
        `SELECT (SELECT count(*)::int FROM cloud_accounts WHERE tenant = $1::uuid) AS accounts,
                (SELECT count(*)::int FROM recommendation WHERE tenant_id = $1::uuid) AS recommendations`,
        [acme.id],
      );
      expect(data.tenant).toEqual([
        {
          id: acme.id,
          cloud_accounts_aggregate: { aggregate: { count: counts.accounts } },
          recommendations_aggregate: { aggregate: { count: counts.recommendations } },
        },
      ]);
    });

    test('the admin role (admin secret, no role) sees the cross-linked targets, so the nulls above come from permissions', async () => {
      const res = await server.gql(
        'query($id: uuid!) { recommendation_by_pk(id: $id) { cloud_resourse { tenant } cloud_account { tenant } } }',
        { id: crossLinked },
      );
      expect(res.body.data.recommendation_by_pk).toEqual({
        cloud_resourse: { tenant: globex.id },
        cloud_account: { tenant: globex.id },
      });
    });
  });

  describe('where-filters through relationships cannot reach globex rows', () => {
    const empty = async (query: string, variables: Record<string, unknown> = {}) => {
      const data = await ok(query, variables);
      expect(Object.values(data)).toEqual([[]]);
    };

    test('spends filtered by a globex account through cloudAccountByCloudAccount: none', () =>
      empty('query($a: uuid!) { spends(where: {cloudAccountByCloudAccount: {id: {_eq: $a}}}) { id } }', {
        a: globex.cloudAccounts.aws,
      }));

    test('cloud_accounts filtered by globex spends through the spends array relationship: none', () =>
      empty('query($t: uuid!) { cloud_accounts(where: {spends: {tenant: {_eq: $t}}}) { id } }', { t: globex.id }));

    test('recommendation filtered on its globex resource and account (the cross-linked row): none', async () => {
      await empty('query($t: uuid!) { recommendation(where: {cloud_resourse: {tenant: {_eq: $t}}}) { id } }', {
        t: globex.id,
      });
      await empty('query($t: uuid!) { recommendation(where: {cloud_account: {tenant: {_eq: $t}}}) { id } }', {
        t: globex.id,
      });
      await empty('query($n: String!) { recommendation(where: {cloud_account: {account_name: {_eq: $n}}}) { id } }', {
        n: String(
          (await sql('SELECT account_name FROM cloud_accounts WHERE id = $1::uuid', [globex.cloudAccounts.aws]))[0]
            .account_name,
        ),
      });
    });

    test('users filtered by a globex membership: none, although alice is a member of globex', () =>
      empty('query($t: uuid!) { users(where: {tenant_users: {tenant: {_eq: $t}}}) { id } }', { t: globex.id }));

    test('the same filters with an aggregate predicate count no globex rows', async () => {
      const data = await ok(
        `query($t: uuid!) { users_aggregate(where: {tenant_users_aggregate: {count: {predicate: {_gt: 1}}}}) { aggregate { count } }
           tenant_users_aggregate(where: {tenant: {_eq: $t}}) { aggregate { count } } }`,
        { t: globex.id },
      );
      expect(data.users_aggregate.aggregate.count).toBe(0);
      expect(data.tenant_users_aggregate.aggregate.count).toBe(0);
    });

    test('a plain filter on a globex tenant column finds nothing in any table', async () => {
      for (const t of TABLES.filter((x) => x.tenantColumn)) {
        const data = await ok(`query($t: uuid!) { rows: ${t.name}(where: {${t.tenantColumn}: {_eq: $t}}) { id } }`, {
          t: globex.id,
        });
        expect([t.name, data.rows]).toEqual([t.name, []]);
      }
    });
  });

  describe('tenant_admin mutations: the tenant comes from the session, globex rows cannot be touched', () => {
    const inputFields = async (typeName: string) => {
      const data = await ok('query($n: String!) { __type(name: $n) { inputFields { name } } }', { n: typeName });
      return (data.__type.inputFields as { name: string }[]).map((f) => f.name);
    };

    test.each(WRITABLE.map((t) => [t.name, t]))(
      '%s: the tenant column is in neither the insert nor the _set input',
      async (_name, t) => {
        const insert = await inputFields(`${t.name}_insert_input`);
        expect(insert).toContain(t.writable);
        expect(insert).not.toContain(t.tenantColumn);
        const set = await inputFields(`${t.name}_set_input`);
        expect(set).toContain(t.writable);
        expect(set).not.toContain(t.tenantColumn);
      },
    );

    test('naming the tenant in an insert is refused by validation', async () => {
      const res = await server.gql(
        'mutation($t: uuid!) { insert_cloud_accounts_one(object: {tenant: $t, account_name: "x", account_type: "x", account_env: "prod", status: "active"}) { id } }',
        { t: globex.id },
        as(ADMIN, acme.id),
      );
      expect(res.body.errors[0].extensions.code).toBe('validation-failed');
      expect(res.body.errors[0].message).toContain('tenant');
      const [n] = await sql("SELECT count(*)::int AS n FROM cloud_accounts WHERE account_name = 'x'");
      expect(n.n).toBe(0);
    });

    test('insert_cloud_accounts_one stores the session tenant', async () => {
      const data = await ok(
        `mutation($by: uuid!) { row: insert_cloud_accounts_one(object: {account_name: "acme-new", account_type: "member", account_env: prod,
           status: active, created_by: $by, updated_by: $by}) { id tenant } }`,
        { by: acme.users.admin.id },
      );
      expect(data.row.tenant).toBe(acme.id);
      const [row] = await sql('SELECT tenant::text AS tenant FROM cloud_accounts WHERE id = $1::uuid', [data.row.id]);
      expect(row.tenant).toBe(acme.id);
    });

    test('insert_tickets with several objects stores the session tenant on each, for each tenant', async () => {
      for (const tenant of [acme, globex]) {
        const ticket = (
          n: number,
        ) => `{integration_id: "${tenant.integrationId}", platform: jira, ticket_id: "T-${n}", ticket_type: "Task",
          reference_id: "ref-${n}", project_key: "PERM", title: "permissions test ${n}"}`;
        const data = await ok(
          `mutation { insert_tickets(objects: [${ticket(1)}, ${ticket(2)}]) { affected_rows returning { id tenant } } }`,
          {},
          as(ADMIN, tenant.id),
        );
        expect(data.insert_tickets.affected_rows).toBe(2);
        expect(data.insert_tickets.returning.map((r: { tenant: string }) => r.tenant)).toEqual([tenant.id, tenant.id]);
        const rows = await sql(
          "SELECT tenant::text AS tenant FROM tickets WHERE project_key = 'PERM' AND id = ANY($1::uuid[])",
          [`{${data.insert_tickets.returning.map((r: { id: string }) => r.id).join(',')}}`],
        );
        expect(rows.map((r) => r.tenant)).toEqual([tenant.id, tenant.id]);
      }
    });

    test.each(WRITABLE.map((t) => [t.name, t]))(
      '%s: update and delete of a globex row affect 0 rows and change nothing',
      async (_name, t) => {
        const pk = await pkOfOneRow(t, globex.id);
        const [{ id }] = await sql(
          `SELECT id::text AS id FROM ${t.name} WHERE ${t.pk.map((c, i) => `${c} = $${i + 1}::uuid`).join(' AND ')}`,
          t.pk.map((c) => pk[c]),
        );
        const snapshot = () =>
          sql(`SELECT row_to_json(x)::text AS row FROM ${t.name} x WHERE id = $1::uuid`, [String(id)]);
        const before = await snapshot();
        expect(before).toHaveLength(1);

        const data = await ok(
          `mutation($rowId: uuid!, ${pkVariables(t)}) {
           update: update_${t.name}(where: {id: {_eq: $rowId}}, _set: {${t.writable}: "taken over"}) { affected_rows returning { id } }
           updateByPk: update_${t.name}_by_pk(pk_columns: {${pkArguments(t)}}, _set: {${t.writable}: "taken over"}) { id }
           delete: delete_${t.name}(where: {id: {_eq: $rowId}}) { affected_rows returning { id } }
           deleteByPk: delete_${t.name}_by_pk(${pkArguments(t)}) { id }
         }`,
          { rowId: id, ...pk },
        );
        expect(data).toEqual({
          update: { affected_rows: 0, returning: [] },
          updateByPk: null,
          delete: { affected_rows: 0, returning: [] },
          deleteByPk: null,
        });
        expect(await snapshot()).toEqual(before);
      },
    );

    test.each(WRITABLE.map((t) => [t.name, t]))(
      '%s: an update of every row changes exactly the acme rows',
      async (_name, t) => {
        const marker = `marked by ${t.name} test`;
        const data = await ok(
          `mutation($m: String!) { all: update_${t.name}(where: {}, _set: {${t.writable}: $m}) { affected_rows } }`,
          { m: marker },
        );
        const [counts] = await sql(
          `SELECT count(*) FILTER (WHERE ${t.tenantColumn} = $1::uuid)::int AS acme, count(*) FILTER (WHERE ${t.tenantColumn} = $2::uuid)::int AS globex
           FROM ${t.name} WHERE ${t.writable} = $3::text`,
          [acme.id, globex.id, marker],
        );
        expect(counts).toEqual({ acme: (await idsOf(t, acme.id)).length, globex: 0 });
        expect(data.all.affected_rows).toBe(counts.acme);
      },
    );

    test('delete of every spend line deletes exactly the acme ones', async () => {
      const globexBefore = (await idsOf(TABLES[1], globex.id)).length;
      const acmeBefore = (await idsOf(TABLES[1], acme.id)).length;
      const data = await ok('mutation { delete_spends(where: {}) { affected_rows } }');
      expect(data.delete_spends.affected_rows).toBe(acmeBefore);
      expect(await idsOf(TABLES[1], acme.id)).toEqual([]);
      expect((await idsOf(TABLES[1], globex.id)).length).toBe(globexBefore);
    });
  });

  describe('tenant_admin_readonly cannot write', () => {
    test('its schema has no mutation type', async () => {
      const data = await ok('{ __schema { mutationType { name } } }', {}, as(READONLY, acme.id));
      expect(data.__schema.mutationType).toBeNull();
      const admin = await ok('{ __schema { mutationType { name } } }', {}, as(ADMIN, acme.id));
      expect(admin.__schema.mutationType).toEqual({ name: 'mutation_root' });
    });

    test('a mutation is validation-failed and changes nothing', async () => {
      const [before] = await sql('SELECT count(*)::int AS n FROM cloud_accounts');
      const res = await server.gql(
        'mutation { delete_cloud_accounts(where: {}) { affected_rows } }',
        {},
        as(READONLY, acme.id),
      );
      expect(res.status).toBe(200);
      expect(res.body.errors[0].extensions.code).toBe('validation-failed');
      expect(res.body.data).toBeUndefined();
      const [after] = await sql('SELECT count(*)::int AS n FROM cloud_accounts');
      expect(after.n).toBe(before.n);
    });
  });

  describe('sessions that are incomplete, unknown or missing are refused', () => {
    test('a role without the x-hasura-tenant-id session variable gets an error naming it', async () => {
      const res = await server.gql('{ cloud_accounts { id } }', {}, { 'x-hasura-role': ADMIN });
      expect(res.status).toBe(400);
      // Hasura's code for a session variable a permission needs and the session lacks.
      expect(res.body.errors[0].extensions.code).toBe('not-found');
      expect(res.body.errors[0].message).toMatch(/missing session variable.*x-hasura-tenant-id/i);
      expect(res.body.data).toBeUndefined();
    });

    test('an unknown role gets an error naming it', async () => {
      const res = await server.gql('{ cloud_accounts { id } }', {}, as('superuser', acme.id));
      expect(res.status).toBe(400);
      expect(res.body.errors[0].extensions.code).toBe('access-denied');
      expect(res.body.errors[0].message).toContain('"superuser"');
    });

    test('no credentials: 401 access-denied', async () => {
      const res = await server.post(
        '/api/graphql',
        JSON.stringify({ query: '{ cloud_accounts { id } }' }),
        as(ADMIN, acme.id),
      );
      expect(res.status).toBe(401);
      expect(res.body.errors[0].extensions.code).toBe('access-denied');
      expect(res.body.data).toBeUndefined();
    });

    test('a wrong admin secret: 401 access-denied', async () => {
      const res = await server.post('/api/graphql', JSON.stringify({ query: '{ cloud_accounts { id } }' }), {
        'x-hasura-admin-secret': `${ADMIN_SECRET}-wrong`,
        ...as(ADMIN, acme.id),
      });
      expect(res.status).toBe(401);
      expect(res.body.errors[0].extensions.code).toBe('access-denied');
      expect(res.text).not.toContain(ADMIN_SECRET);
    });
  });

  describe('lookup tables are readable by both roles', () => {
    test.each(LOOKUP_TABLES.flatMap((name) => [ADMIN, READONLY].map((role) => [name, role])))(
      '%s as %s: every value',
      async (name, role) => {
        const data = await ok(`{ rows: ${name}(order_by: {value: asc}) { value } }`, {}, as(role, acme.id));
        const expected = await sql(`SELECT value FROM ${name} ORDER BY value COLLATE "C"`);
        expect(data.rows.map((r: { value: string }) => r.value).sort()).toEqual(expected.map((r) => r.value).sort());
        expect(data.rows.length).toBeGreaterThan(0);
      },
    );

    test('reading a lookup table needs no tenant session variable', async () => {
      const data = await ok('{ event_severity { value } }', {}, { 'x-hasura-role': READONLY });
      expect(data.event_severity.length).toBeGreaterThan(0);
    });
  });
});
