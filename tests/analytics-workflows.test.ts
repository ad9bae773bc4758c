import { DEMO } from '../demo/demo-data';
import { backendName } from './support/database';
import { as, startTestServer, type TestServer } from './support/server';

/**
 * The workflow_* operations through HTTP, as a tenant's users: answers checked against SQL written
 * here by hand, and never a workflow or execution of another tenant.
 * The demo workflows come with the demo set (demo/workflows.sql).
 */
const acme = DEMO.tenants.acme;
const globex = DEMO.tenants.globex;
const readonly = as('tenant_admin_readonly', acme.id, acme.users.readonly.id);
const admin = as('tenant_admin', acme.id, acme.users.admin.id);
const globexAdmin = as('tenant_admin', globex.id, globex.users.admin.id);

/** A Globex workflow (and execution) put on Acme's AWS account id, to show the tenant decides, not the account. */
const STRAY_WORKFLOW = '22222222-0060-4000-8000-0000000000ff';
const STRAY_EXECUTION = '22222222-0061-4000-8000-0000000000ff';
const ACME_WF = '11111111-0060-4000-8000-000000000001';
const ACME_EXEC = '11111111-0061-4000-8000-000000000002';
const GLOBEX_WF = '22222222-0060-4000-8000-000000000001';
const GLOBEX_EXEC = '22222222-0061-4000-8000-000000000001';

type Row = Record<string, unknown>;

const WORKFLOW_FIELDS = `id tenant_id account_id name status tags last_execution_status last_execution_time created_at updated_at created_by updated_by
  created_by_user { id display_name } updated_by_user { id display_name }
  definition { version timeout output
    inputs { id type default description }
    triggers { type params }
    retry_policy { maximum_attempts initial_interval backoff_coefficient maximum_interval non_retryable_error_types }
    hooks { always { type params } failure { type params } success { type params } }
    tasks { id type depends_on if params failure_policy { action retry { maximum_attempts initial_interval } } } }`;

describe(`workflow operations on ${backendName}`, () => {
  let server: TestServer;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const query = async (doc: string, headers = readonly): Promise<Record<string, any>> => {
    const res = await server.gql(doc, {}, headers);
    if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
    return res.body.data;
  };
  const call = async (field: string, args: string, selection: string, headers = readonly) =>
    (await query(`{ ${field}(${args}) { ${selection} } }`, headers))[field];
  const sql = (text: string, params: (string | null)[] = [acme.id]) => server.started.db.query(text, params);
  const TS = (col: string) => `to_char(${col}, 'YYYY-MM-DD"T"HH24:MI:SS')`;

  beforeAll(async () => {
    server = await startTestServer();
    await server.started.db.exec(`
      INSERT INTO workflows (id, tenant_id, account_id, name, status, definition, tags, created_at)
        VALUES ('${STRAY_WORKFLOW}', '${globex.id}', '${acme.cloudAccounts.aws}', 'Stop idle dev instances (Globex)', 'ACTIVE',
          '{"triggers":[{"type":"schedule"}],"tasks":[]}', '{"env":"dev"}', '2026-03-05 00:00:00');
      INSERT INTO workflow_executions (id, tenant_id, workflow_id, status, trigger_type, start_time)
        VALUES ('${STRAY_EXECUTION}', '${globex.id}', '${STRAY_WORKFLOW}', 'COMPLETED', 'schedule', '2026-03-05 01:00:00');`);
  });
  afterAll(() => server.close());

  test('the demo set holds workflows for both tenants and the task catalogue', async () => {
    const [{ acmeN, globexN, defs }] = await sql(
      `SELECT count(*) FILTER (WHERE tenant_id = $1)::int AS "acmeN", count(*) FILTER (WHERE tenant_id = $2)::int AS "globexN",
        (SELECT count(*)::int FROM workflow_task_definitions) AS defs FROM workflows`,
      [acme.id, globex.id],
    );
    expect(acmeN).toBe(3);
    expect(globexN).toBe(3);
    expect(defs).toBeGreaterThan(3);
  });

  test('workflow_get: one workflow with its definition and users, as SQL has it, for both tenant roles', async () => {
    const [e] = await sql(
      `SELECT w.id::text AS id, w.tenant_id::text AS tenant_id, w.account_id::text AS account_id, w.name, w.status, w.tags::text AS tags,
        w.definition::text AS definition, w.last_execution_status, ${TS('w.last_execution_time')} AS last_execution_time,
        ${TS('w.created_at')} AS created_at, ${TS('w.updated_at')} AS updated_at, w.created_by::text AS created_by, w.updated_by::text AS updated_by,
        cu.display_name AS created_name, uu.display_name AS updated_name
      FROM workflows w LEFT JOIN users cu ON cu.id = w.created_by LEFT JOIN users uu ON uu.id = w.updated_by
      WHERE w.tenant_id = $1 AND w.id = $2`,
      [acme.id, ACME_WF],
    );
    for (const headers of [readonly, admin]) {
      const got = await call(
        'workflow_get',
        `request: {account_id: "${acme.cloudAccounts.aws}", id: "${ACME_WF}"}`,
        WORKFLOW_FIELDS,
        headers,
      );
      expect(got).toMatchObject({
        id: e.id,
        tenant_id: e.tenant_id,
        account_id: e.account_id,
        name: e.name,
        status: e.status,
        last_execution_status: e.last_execution_status,
        last_execution_time: e.last_execution_time,
        created_at: e.created_at,
        updated_at: e.updated_at,
        created_by: e.created_by,
        updated_by: e.updated_by,
        created_by_user: { id: e.created_by, display_name: e.created_name },
        updated_by_user: { id: e.updated_by, display_name: e.updated_name },
      });
      expect(got.created_by_user.display_name).toBe(acme.users.admin.displayName);
      expect(got.tags).toEqual(JSON.parse(String(e.tags)));
      const def = JSON.parse(String(e.definition));
      expect(got.definition).toMatchObject({
        version: def.version,
        timeout: def.timeout,
        output: def.output,
        inputs: def.inputs,
        triggers: def.triggers,
        retry_policy: def.retry_policy,
      });
      expect(got.definition.hooks).toEqual([{ always: null, success: null, failure: def.hooks[0].failure }]);
      expect(got.definition.tasks.map((t: Row) => t.id)).toEqual(def.tasks.map((t: Row) => t.id));
      expect(got.definition.tasks[1]).toMatchObject({
        type: 'cloud_resource_action',
        depends_on: ['find'],
        params: { action: 'stop' },
        failure_policy: { action: 'retry', retry: { maximum_attempts: 2, initial_interval: '30s' } },
      });
    }
    // Unknown id, wrong account, another tenant's workflow (by its own account or by the caller's): null.
    expect(
      await call('workflow_get', `request: {account_id: "${acme.cloudAccounts.gcp}", id: "${ACME_WF}"}`, 'id'),
    ).toBeNull();
    expect(
      await call('workflow_get', `request: {account_id: "${acme.cloudAccounts.aws}", id: "nope"}`, 'id'),
    ).toBeNull();
    expect(
      await call('workflow_get', `request: {account_id: "${globex.cloudAccounts.aws}", id: "${GLOBEX_WF}"}`, 'id'),
    ).toBeNull();
    expect(
      await call(
        'workflow_get',
        `request: {account_id: "${acme.cloudAccounts.aws}", id: "${STRAY_WORKFLOW}"}`,
        'id',
        admin,
      ),
    ).toBeNull();
    expect(
      await call(
        'workflow_get',
        `request: {account_id: "${globex.cloudAccounts.aws}", id: "${GLOBEX_WF}"}`,
        'id name',
        globexAdmin,
      ),
    ).toEqual({ id: GLOBEX_WF, name: 'Stop idle dev instances' });
  });

  test('workflow_get_count counts what SQL counts (status, trigger type)', async () => {
    const count = async (extra: string, headers = readonly) =>
      (await call('workflow_get_count', `request: {account_id: "${acme.cloudAccounts.aws}"${extra}}`, 'count', headers))
        .count;
    const [e] = await sql(
      `SELECT count(*)::int AS all, count(*) FILTER (WHERE status = 'ACTIVE')::int AS active,
        count(*) FILTER (WHERE EXISTS (SELECT 1 FROM jsonb_array_elements(definition -> 'triggers') t WHERE t ->> 'type' = 'schedule'))::int AS scheduled,
        count(*) FILTER (WHERE status = 'DRAFT')::int AS draft
      FROM workflows WHERE tenant_id = $1 AND account_id = $2`,
      [acme.id, acme.cloudAccounts.aws],
    );
    expect(e.all).toBe(2);
    expect(await count('')).toBe(e.all);
    expect(await count(', status: "ACTIVE"', admin)).toBe(e.active);
    expect(await count(', trigger_type: "schedule"')).toBe(e.scheduled);
    expect(await count(', status: "DRAFT"')).toBe(e.draft);
    const [g] = await sql(
      `SELECT count(*)::int AS n FROM workflows WHERE tenant_id = $1 AND account_id = $2
      AND EXISTS (SELECT 1 FROM jsonb_array_elements(definition -> 'triggers') t WHERE t ->> 'type' = 'manual')`,
      [acme.id, acme.cloudAccounts.gcp],
    );
    expect(
      (
        await call(
          'workflow_get_count',
          `request: {account_id: "${acme.cloudAccounts.gcp}", trigger_type: "manual"}`,
          'count',
        )
      ).count,
    ).toBe(g.n);
    expect(
      (await call('workflow_get_count', `request: {account_id: "${globex.cloudAccounts.aws}"}`, 'count')).count,
    ).toBe(0);
  });

  test('workflow_list: newest first, filtered, paged with next_page_token, total_count as SQL', async () => {
    const account = acme.cloudAccounts.aws;
    const expected = await sql(
      `SELECT id::text AS id, name, status, ${TS('created_at')} AS created_at FROM workflows
      WHERE tenant_id = $1 AND account_id = $2 ORDER BY created_at DESC, id`,
      [acme.id, account],
    );
    const all = await call(
      'workflow_list',
      `request: {account_id: "${account}"}`,
      `total_count next_page_token workflows { id name status created_at }`,
    );
    expect(all).toEqual({ total_count: expected.length, next_page_token: null, workflows: expected });
    // One at a time, following the tokens.
    const seen: string[] = [];
    let token: string | null = null;
    do {
      const page: { total_count: number; next_page_token: string | null; workflows: Row[] } = await call(
        'workflow_list',
        `request: {account_id: "${account}", limit: 1${token ? `, next_page_token: "${token}"` : ''}}`,
        'total_count next_page_token workflows { id }',
        admin,
      );
      expect(page.total_count).toBe(expected.length);
      seen.push(...page.workflows.map((w) => String(w.id)));
      token = page.next_page_token;
    } while (token);
    expect(seen).toEqual(expected.map((e) => e.id));
    // Filters.
    const filtered = async (extra: string) =>
      (await call('workflow_list', `request: {account_id: "${account}"${extra}}`, 'workflows { id }')).workflows.map(
        (w: Row) => w.id,
      );
    const ids = async (where: string, params: string[] = []) =>
      (
        await sql(
          `SELECT id::text AS id FROM workflows WHERE tenant_id = $1 AND account_id = $2 AND ${where} ORDER BY created_at DESC, id`,
          [acme.id, account, ...params],
        )
      ).map((r) => r.id);
    expect(await filtered(', name: "IDLE"')).toEqual(await ids(`name ILIKE '%idle%'`));
    expect(await filtered(', status: "ACTIVE", last_execution_status: "FAILED"')).toEqual(
      await ids(`status = 'ACTIVE' AND last_execution_status = 'FAILED'`),
    );
    expect(await filtered(', tags: "env:dev"')).toEqual(await ids(`tags ->> 'env' = 'dev'`));
    expect(await filtered(', tags: "team, env=staging"')).toEqual(
      await ids(`tags ->> 'env' = 'staging' AND tags ? 'team'`),
    );
    expect(await filtered(', type: "schedule"')).toEqual(
      await ids(`definition -> 'triggers' @> '[{"type":"schedule"}]'`),
    );
    expect(await filtered(', name: "%"')).toEqual([]);
    const bad = await server.gql(
      `{ workflow_list(request: {account_id: "${account}", next_page_token: "garbage"}) { total_count } }`,
      {},
      readonly,
    );
    expect(bad.body.errors?.[0]?.message).toMatch(/page token/);
  });

  test("workflow_list never shows another tenant's workflows", async () => {
    const acmeIds = (await sql(`SELECT id::text AS id FROM workflows WHERE tenant_id = $1`)).map((r) => r.id);
    const globexIds = (await sql(`SELECT id::text AS id FROM workflows WHERE tenant_id = $1`, [globex.id])).map(
      (r) => r.id,
    );
    expect(globexIds).toContain(STRAY_WORKFLOW);
    for (const account of Object.values(acme.cloudAccounts)) {
      const got = await call(
        'workflow_list',
        `request: {account_id: "${account}", limit: 100}`,
        'total_count workflows { id tenant_id }',
        admin,
      );
      for (const w of got.workflows) {
        expect(w.tenant_id).toBe(acme.id);
        expect(acmeIds).toContain(w.id);
      }
    }
    const mine = await call(
      'workflow_list',
      `request: {account_id: "${acme.cloudAccounts.aws}"}`,
      'workflows { id }',
      globexAdmin,
    );
    expect(mine.workflows.map((w: Row) => w.id)).toEqual([STRAY_WORKFLOW]);
    expect(
      (
        await call(
          'workflow_list',
          `request: {account_id: "${globex.cloudAccounts.aws}"}`,
          'total_count workflows { id }',
        )
      ).total_count,
    ).toBe(0);
  });

  test('workflow_get_execution: one execution with its tasks, as SQL has it', async () => {
    const [e] = await sql(
      `SELECT e.id::text AS id, e.workflow_id::text AS workflow_id, e.status, e.error, e.triggered_by, e.parent_workflow_id,
        e.inputs::text AS inputs, e.tasks::text AS tasks, e.workflow_result::text AS workflow_result, ${TS('e.start_time')} AS start_time, ${TS('e.close_time')} AS close_time
      FROM workflow_executions e WHERE e.tenant_id = $1 AND e.id = $2`,
      [acme.id, ACME_EXEC],
    );
    const args = `request: {account_id: "${acme.cloudAccounts.aws}", workflow_id: "${ACME_WF}", id: "${ACME_EXEC}"}`;
    for (const headers of [readonly, admin]) {
      const got = await call(
        'workflow_get_execution',
        args,
        'id workflow_id status error triggered_by parent_workflow_id inputs workflow_result start_time close_time tasks { id type status attempt error start_time end_time input output children }',
        headers,
      );
      expect(got).toMatchObject({
        id: e.id,
        workflow_id: e.workflow_id,
        status: e.status,
        error: e.error,
        triggered_by: e.triggered_by,
        parent_workflow_id: e.parent_workflow_id,
        start_time: e.start_time,
        close_time: e.close_time,
        inputs: JSON.parse(String(e.inputs)),
        workflow_result: null,
      });
      const tasks = JSON.parse(String(e.tasks)) as Row[];
      expect(got.tasks).toEqual(tasks.map((t) => ({ input: null, output: null, children: null, error: null, ...t })));
      expect(got.tasks[1]).toMatchObject({
        id: 'stop',
        status: 'FAILED',
        attempt: 2,
        error: 'instance i-0abc is protected',
      });
    }
    // Wrong workflow, wrong account, another tenant's execution: null.
    expect(
      await call(
        'workflow_get_execution',
        `request: {account_id: "${acme.cloudAccounts.aws}", workflow_id: "11111111-0060-4000-8000-000000000002", id: "${ACME_EXEC}"}`,
        'id',
      ),
    ).toBeNull();
    expect(
      await call(
        'workflow_get_execution',
        `request: {account_id: "${acme.cloudAccounts.gcp}", workflow_id: "${ACME_WF}", id: "${ACME_EXEC}"}`,
        'id',
      ),
    ).toBeNull();
    expect(
      await call(
        'workflow_get_execution',
        `request: {account_id: "${globex.cloudAccounts.aws}", workflow_id: "${GLOBEX_WF}", id: "${GLOBEX_EXEC}"}`,
        'id',
      ),
    ).toBeNull();
    expect(
      await call(
        'workflow_get_execution',
        `request: {account_id: "${acme.cloudAccounts.aws}", workflow_id: "${STRAY_WORKFLOW}", id: "${STRAY_EXECUTION}"}`,
        'id',
        admin,
      ),
    ).toBeNull();
    expect(
      await call(
        'workflow_get_execution',
        `request: {account_id: "${globex.cloudAccounts.aws}", workflow_id: "${GLOBEX_WF}", id: "${GLOBEX_EXEC}"}`,
        'id status',
        globexAdmin,
      ),
    ).toEqual({ id: GLOBEX_EXEC, status: 'COMPLETED' });
  });

  test('workflow_get_execution_count counts what SQL counts (workflow, status, trigger, dates)', async () => {
    const account = acme.cloudAccounts.aws;
    const count = async (extra: string, headers = readonly) =>
      (await call('workflow_get_execution_count', `request: {account_id: "${account}"${extra}}`, 'count', headers))
        .count;
    const n = async (where: string, params: string[] = []) =>
      (
        await sql(
          `SELECT count(*)::int AS n FROM workflow_executions e JOIN workflows w ON w.id = e.workflow_id
      WHERE e.tenant_id = $1 AND w.tenant_id = $1 AND w.account_id = $2 AND ${where}`,
          [acme.id, account, ...params],
        )
      )[0].n;
    expect(await count('')).toBe(await n('true'));
    expect(await n('true')).toBe(5);
    expect(await count(`, workflow_id: "${ACME_WF}"`, admin)).toBe(await n('e.workflow_id = $3', [ACME_WF]));
    expect(await count(', status: "FAILED"')).toBe(await n(`e.status = 'FAILED'`));
    expect(await count(', trigger_type: "schedule", status: "COMPLETED"')).toBe(
      await n(`e.trigger_type = 'schedule' AND e.status = 'COMPLETED'`),
    );
    expect(await count(', start_date: "2026-02-28T00:00:00", end_date: "2026-03-02T00:00:00"')).toBe(
      await n(`e.start_time >= '2026-02-28 00:00:00' AND e.start_time < '2026-03-02 00:00:00'`),
    );
    // A zone is honoured: 21:00 at +01:00 is 20:00 UTC.
    expect(await count(', start_date: "2026-02-28T21:00:00+01:00"')).toBe(
      await n(`e.start_time >= '2026-02-28 20:00:00'`),
    );
    expect(await count(', start_date: "2026-02-28T21:00:01+01:00"')).toBe(
      await n(`e.start_time > '2026-02-28 20:00:00'`),
    );
    // The stray Globex execution on Acme's account id is not counted.
    expect(await count(`, workflow_id: "${STRAY_WORKFLOW}"`)).toBe(0);
  });

  test('workflow_list_executions: latest first, filtered, paged with next_page_token', async () => {
    const account = acme.cloudAccounts.aws;
    const expected = await sql(
      `SELECT id::text AS id, workflow_id::text AS workflow_id, status, trigger_type, triggered_by, parent_workflow_id,
        ${TS('start_time')} AS start_time, ${TS('close_time')} AS close_time
      FROM workflow_executions WHERE tenant_id = $1 AND workflow_id = $2 ORDER BY start_time DESC, id`,
      [acme.id, ACME_WF],
    );
    expect(expected.length).toBe(3);
    const all = await call(
      'workflow_list_executions',
      `request: {account_id: "${account}", id: "${ACME_WF}"}`,
      'next_page_token executions { id workflow_id status trigger_type triggered_by parent_workflow_id start_time close_time }',
    );
    expect(all).toEqual({ next_page_token: null, executions: expected });
    const seen: unknown[] = [];
    let token: string | null = null;
    do {
      const page: { next_page_token: string | null; executions: Row[] } = await call(
        'workflow_list_executions',
        `request: {account_id: "${account}", id: "${ACME_WF}", limit: 2${token ? `, next_page_token: "${token}"` : ''}}`,
        'next_page_token executions { id }',
        admin,
      );
      seen.push(...page.executions.map((x) => x.id));
      token = page.next_page_token;
    } while (token);
    expect(seen).toEqual(expected.map((e) => e.id));
    const filtered = await call(
      'workflow_list_executions',
      `request: {account_id: "${account}", id: "${ACME_WF}", status: "COMPLETED", trigger_type: "schedule"}`,
      'executions { id }',
    );
    expect(filtered.executions.map((x: Row) => x.id)).toEqual(
      expected.filter((e) => e.status === 'COMPLETED' && e.trigger_type === 'schedule').map((e) => e.id),
    );
    // Another tenant's workflow, by its account or by the caller's: nothing.
    expect(
      (
        await call(
          'workflow_list_executions',
          `request: {account_id: "${globex.cloudAccounts.aws}", id: "${GLOBEX_WF}"}`,
          'executions { id }',
        )
      ).executions,
    ).toEqual([]);
    expect(
      (
        await call(
          'workflow_list_executions',
          `request: {account_id: "${account}", id: "${STRAY_WORKFLOW}"}`,
          'executions { id }',
          admin,
        )
      ).executions,
    ).toEqual([]);
    const theirs = await call(
      'workflow_list_executions',
      `request: {account_id: "${globex.cloudAccounts.aws}", id: "${GLOBEX_WF}"}`,
      'executions { id }',
      globexAdmin,
    );
    expect(theirs.executions.map((x: Row) => x.id)).toEqual(
      (
        await sql(
          `SELECT id::text AS id FROM workflow_executions WHERE tenant_id = $1 AND workflow_id = $2 ORDER BY start_time DESC, id`,
          [globex.id, GLOBEX_WF],
        )
      ).map((r) => r.id),
    );
  });

  test('workflow_list_taskdefinitions: the shared catalogue by name, filtered and paged', async () => {
    const expected = await sql(
      `SELECT name, description, input_schema::text AS input_schema, output_schema::text AS output_schema FROM workflow_task_definitions ORDER BY name`,
      [],
    );
    for (const headers of [readonly, admin, globexAdmin]) {
      const got = await call(
        'workflow_list_taskdefinitions',
        'params: {}',
        'tasks { name description input_schema output_schema }',
        headers,
      );
      expect(got.tasks).toEqual(
        expected.map((e) => ({
          ...e,
          input_schema: JSON.parse(String(e.input_schema)),
          output_schema: e.output_schema === null ? null : JSON.parse(String(e.output_schema)),
        })),
      );
    }
    const paged = await call('workflow_list_taskdefinitions', 'params: {limit: 2, offset: 1}', 'tasks { name }');
    expect(paged.tasks.map((t: Row) => t.name)).toEqual(expected.slice(1, 3).map((e) => e.name));
    const named = await call('workflow_list_taskdefinitions', 'params: {name: "CLOUD"}', 'tasks { name }');
    expect(named.tasks.map((t: Row) => t.name)).toEqual(
      expected.filter((e) => String(e.name).includes('cloud')).map((e) => e.name),
    );
  });

  test('a role without the permission does not see the operations', async () => {
    const res = await server.gql(
      `{ workflow_list_taskdefinitions(params: {}) { tasks { name } } }`,
      {},
      as('nobody', acme.id),
    );
    expect(res.body.errors).toBeDefined();
  });
});
