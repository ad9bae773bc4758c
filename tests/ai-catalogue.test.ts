import { DEMO } from '../demo/demo-data';
import { backendName } from './support/database';
import { as, startTestServer, type TestServer } from './support/server';

/**
 * The AI catalogue operations (actions/ai-catalogue/) through HTTP, as a tenant's users: answers
 * checked against SQL written here by hand; rows of another tenant never appear, even when put on
 * this tenant's account ids; bad input is refused with a code. Demo rows: demo/ai-catalogue.sql.
 */
const acme = DEMO.tenants.acme;
const globex = DEMO.tenants.globex;
const readonly = as('tenant_admin_readonly', acme.id, acme.users.readonly.id);
const admin = as('tenant_admin', acme.id, acme.users.admin.id);
const globexAdmin = as('tenant_admin', globex.id, globex.users.admin.id);
const AWS = acme.cloudAccounts.aws;
const GCP = acme.cloudAccounts.gcp;

const ACME_AGENT = '11111111-0072-4000-8000-000000000001';
const ACME_KB = '11111111-0073-4000-8000-000000000001';
const ACME_GC = '11111111-0074-4000-8000-000000000001';
const GLOBEX_AGENT = '22222222-0072-4000-8000-000000000001';
const GLOBEX_KB = '22222222-0073-4000-8000-000000000001';
const GLOBEX_GC = '22222222-0074-4000-8000-000000000001';
/** Globex rows put on Acme's AWS account id: the tenant decides, not the account. */
const STRAY = {
  agent: '22222222-0072-4000-8000-0000000000ff',
  kb: '22222222-0073-4000-8000-0000000000ff',
  gc: '22222222-0074-4000-8000-0000000000ff',
  tool: '22222222-0070-4000-8000-0000000000ff',
  conversation: '22222222-0075-4000-8000-0000000000ff',
};
const CONVERSATION = '11111111-0075-4000-8000-000000000001';
const CONVERSATION_2 = '11111111-0075-4000-8000-000000000002';
const MESSAGE = '11111111-0076-4000-8000-000000000001';
const NOT_FOUND = '11111111-00ff-4000-8000-000000000001';

type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe(`AI catalogue operations on ${backendName}`, () => {
  let server: TestServer;
  const query = async (doc: string, headers = readonly): Promise<Row> => {
    const res = await server.gql(doc, {}, headers);
    if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
    return res.body.data;
  };
  const call = async (field: string, request: string, selection: string, headers = readonly) =>
    (await query(`{ ${field}(request: {${request}}) { ${selection} } }`, headers))[field];
  /** The first error of a call that must fail. */
  const failure = async (field: string, request: string, selection: string, headers = readonly) => {
    const res = await server.gql(`{ ${field}(request: {${request}}) { ${selection} } }`, {}, headers);
    expect(res.body.errors).toBeDefined();
    return res.body.errors[0];
  };
  const sql = (text: string, params: (string | null)[] = [acme.id]) => server.started.db.query(text, params);
  const TS = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS')`;

  beforeAll(async () => {
    server = await startTestServer();
    await server.started.db.exec(`
      INSERT INTO ai_agent (id, tenant_id, cloud_account_id, name, agent_type) VALUES ('${STRAY.agent}', '${globex.id}', '${AWS}', 'Globex stray agent', 'assistant');
      INSERT INTO ai_knowledgebase (id, tenant_id, cloud_account_id, name, data) VALUES ('${STRAY.kb}', '${globex.id}', '${AWS}', 'Globex stray KB', 'secret');
      INSERT INTO ai_global_context (id, tenant_id, cloud_account_id, name, data) VALUES ('${STRAY.gc}', '${globex.id}', '${AWS}', 'Globex stray GC', 'secret');
      INSERT INTO ai_tool (id, tenant_id, cloud_account_id, name, description) VALUES ('${STRAY.tool}', '${globex.id}', '${AWS}', 'globex_stray_tool', 'not Acme''s');
      -- A Globex mapping of an Acme agent to a Globex knowledge base, and a Globex agent using a platform tool.
      INSERT INTO ai_agent_kb (tenant_id, agent_id, kb_id) VALUES ('${globex.id}', '${ACME_AGENT}', '${STRAY.kb}');
      INSERT INTO ai_agent_tool (tenant_id, agent_id, tool_id) VALUES ('${globex.id}', '${STRAY.agent}', '00000000-0070-4000-8000-000000000003');
      INSERT INTO ai_conversation (id, tenant_id, cloud_account_id, title, model_config) VALUES
        ('${CONVERSATION}', '${acme.id}', '${AWS}', 'Checkout errors', '{"llm_model_name":"gpt-4o","llm_provider":"openai"}'),
        ('${CONVERSATION_2}', '${acme.id}', '${AWS}', 'Cost', '{}'),
        ('${STRAY.conversation}', '${globex.id}', '${AWS}', 'Globex', '{"llm_model_name":"claude-3-5-sonnet"}');
      INSERT INTO ai_message (id, tenant_id, conversation_id, role, content) VALUES ('${MESSAGE}', '${acme.id}', '${CONVERSATION}', 'assistant', 'The checkout pods restart.');
      INSERT INTO ai_memory (tenant_id, cloud_account_id, conversation_id, message_id, memory_type, content, created_at)
        SELECT '${acme.id}', '${AWS}', CASE WHEN n % 2 = 0 THEN '${CONVERSATION}'::uuid ELSE '${CONVERSATION_2}'::uuid END,
          CASE WHEN n % 4 = 0 THEN '${MESSAGE}'::uuid END, 'fact', 'memory ' || n, timestamptz '2026-03-01 00:00:00+00' + n * interval '1 minute'
        FROM generate_series(1, 230) n;
      INSERT INTO ai_memory (tenant_id, cloud_account_id, conversation_id, content, created_at) VALUES
        ('${globex.id}', '${AWS}', '${STRAY.conversation}', 'globex memory', '2026-04-01 00:00:00+00');
      INSERT INTO ai_reference (tenant_id, cloud_account_id, agent_id, conversation_id, message_id, reference_id, type, content, created_at)
        SELECT '${acme.id}', '${AWS}', CASE WHEN n % 3 = 0 THEN '${ACME_AGENT}'::uuid END, '${CONVERSATION}', CASE WHEN n % 2 = 0 THEN '${MESSAGE}'::uuid END,
          'event-' || n, CASE WHEN n % 2 = 0 THEN 'event' ELSE 'knowledge_base' END, 'reference ' || n, timestamptz '2026-03-02 00:00:00+00' + n * interval '1 hour'
        FROM generate_series(1, 12) n;
      INSERT INTO ai_reference (tenant_id, cloud_account_id, agent_id, conversation_id, reference_id, type, created_at) VALUES
        ('${globex.id}', '${AWS}', '${ACME_AGENT}', '${STRAY.conversation}', 'globex-ref', 'event', '2026-04-01 00:00:00+00');`);
  });
  afterAll(() => server.close());

  test('the demo set holds agents, knowledge bases, mappings, contexts and tools for both tenants', async () => {
    const [c] = await sql(
      `SELECT
        (SELECT count(DISTINCT tenant_id)::int FROM ai_agent WHERE id::text NOT LIKE '%ff') AS agents,
        (SELECT count(DISTINCT tenant_id)::int FROM ai_knowledgebase WHERE id::text NOT LIKE '%ff') AS kbs,
        (SELECT count(DISTINCT tenant_id)::int FROM ai_agent_kb) AS mappings,
        (SELECT count(DISTINCT tenant_id)::int FROM ai_global_context WHERE id::text NOT LIKE '%ff') AS gcs,
        (SELECT count(*)::int FROM ai_tool WHERE tenant_id IS NULL) AS platform_tools`,
      [],
    );
    expect(c).toEqual({ agents: 2, kbs: 2, mappings: 2, gcs: 2, platform_tools: expect.any(Number) });
    expect(c.platform_tools).toBeGreaterThan(3);
  });

  test("ai_list_agents: the account's agents with their tools, as SQL has them, for both roles", async () => {
    const rows = await sql(
      `SELECT a.id::text AS id, a.name, a.agent_type, a.enabled, a.system_prompt, ${TS('a.created_at')} AS created_at,
        coalesce((SELECT array_agg(t.name ORDER BY t.name) FROM ai_agent_tool at JOIN ai_tool t ON t.id = at.tool_id WHERE at.agent_id = a.id AND at.tenant_id = $1), '{}') AS tools
      FROM ai_agent a WHERE a.tenant_id = $1 AND a.cloud_account_id = $2 ORDER BY a.name`,
      [acme.id, AWS],
    );
    expect(rows.length).toBe(3);
    for (const headers of [readonly, admin]) {
      const { data } = await call('ai_list_agents', `account_id: "${AWS}"`, 'data', headers);
      expect(data.total).toBe(rows.length);
      expect(
        data.agents.map((a: Row) => [
          a.id,
          a.name,
          a.agent_type,
          a.enabled,
          a.system_prompt,
          a.created_at,
          a.tools,
          a.account_id,
          a.tenant_id,
        ]),
      ).toEqual(
        rows.map((r) => [
          r.id,
          r.name,
          r.agent_type,
          r.enabled,
          r.system_prompt,
          r.created_at,
          [...r.tools],
          AWS,
          acme.id,
        ]),
      );
    }
    const globexData = (await call('ai_list_agents', `account_id: "${globex.cloudAccounts.aws}"`, 'data', globexAdmin))
      .data;
    expect(globexData.agents.map((a: Row) => a.id)).toEqual(['22222222-0072-4000-8000-000000000002', GLOBEX_AGENT]);
  });

  test("ai_list_agents_with_kb_counts: counts only the tenant's own mappings", async () => {
    const rows = await sql(
      `SELECT a.id::text AS id, (SELECT count(*)::int FROM ai_agent_kb m JOIN ai_knowledgebase k ON k.id = m.kb_id
        WHERE m.agent_id = a.id AND m.tenant_id = $1 AND k.tenant_id = $1) AS n
      FROM ai_agent a WHERE a.tenant_id = $1 AND a.cloud_account_id = $2 ORDER BY a.name`,
      [acme.id, AWS],
    );
    const got = await call('ai_list_agents_with_kb_counts', `account_id: "${AWS}"`, 'data errors { code message }');
    expect(got.errors).toBeNull();
    expect(got.data.agents.map((a: Row) => [a.id, a.kb_count])).toEqual(rows.map((r) => [r.id, r.n]));
    expect(got.data.agents.find((a: Row) => a.id === ACME_AGENT).kb_count).toBe(2);
  });

  test('ai_list_agent_kbs and ai_list_kb_agents: both sides of the mapping; unknown ids are not-found', async () => {
    const kbs = await sql(
      `SELECT k.id::text AS id, k.name, k.data_size_bytes FROM ai_agent_kb m JOIN ai_knowledgebase k ON k.id = m.kb_id
      WHERE m.tenant_id = $1 AND k.tenant_id = $1 AND m.agent_id = $2 ORDER BY k.name`,
      [acme.id, ACME_AGENT],
    );
    const got = await call(
      'ai_list_agent_kbs',
      `account_id: "${AWS}", agent_id: "${ACME_AGENT}"`,
      'data errors { code message }',
    );
    expect(got.data.agent_id).toBe(ACME_AGENT);
    expect(got.data.knowledge_bases.map((k: Row) => [k.id, k.name, k.data_size_bytes])).toEqual(
      kbs.map((k) => [k.id, k.name, Number(k.data_size_bytes)]),
    );
    expect(got.data.knowledge_bases[0]).not.toHaveProperty('data');
    const agents = await sql(
      `SELECT a.id::text AS id FROM ai_agent_kb m JOIN ai_agent a ON a.id = m.agent_id
      WHERE m.tenant_id = $1 AND a.tenant_id = $1 AND m.kb_id = $2 ORDER BY a.name`,
      [acme.id, ACME_KB],
    );
    const back = await call(
      'ai_list_kb_agents',
      `account_id: "${AWS}", kb_id: "${ACME_KB}"`,
      'data errors { code message }',
    );
    expect(back.data.agents.map((a: Row) => a.id)).toEqual(agents.map((a) => a.id));
    expect(back.data.total).toBe(agents.length);
    for (const [field, arg, id] of [
      ['ai_list_agent_kbs', 'agent_id', GLOBEX_AGENT],
      ['ai_list_agent_kbs', 'agent_id', STRAY.agent],
      ['ai_list_kb_agents', 'kb_id', STRAY.kb],
      ['ai_list_kb_agents', 'kb_id', NOT_FOUND],
    ]) {
      const res = await call(field!, `account_id: "${AWS}", ${arg}: "${id}"`, 'data errors { code message }');
      expect(res).toEqual({ data: null, errors: [{ code: 'not-found', message: expect.stringContaining(id!) }] });
    }
    const bad = await failure('ai_list_agent_kbs', `account_id: "${AWS}", agent_id: "agent-1"`, 'data');
    expect(bad.extensions).toMatchObject({ code: 'validation-failed', path: '$.request.agent_id' });
  });

  test('ai_list_kb_agent_mappings: every mapping of the account, by agent then knowledge base', async () => {
    const rows = await sql(
      `SELECT a.id::text AS agent_id, a.name AS agent_name, k.id::text AS kb_id, k.name AS kb_name
      FROM ai_agent_kb m JOIN ai_agent a ON a.id = m.agent_id JOIN ai_knowledgebase k ON k.id = m.kb_id
      WHERE m.tenant_id = $1 AND a.tenant_id = $1 AND k.tenant_id = $1 AND a.cloud_account_id = $2 AND k.cloud_account_id = $2 ORDER BY a.name, k.name`,
      [acme.id, AWS],
    );
    const got = await call('ai_list_kb_agent_mappings', `account_id: "${AWS}"`, 'data errors { code message }');
    expect(
      got.data.mappings.map((m: Row) => ({
        agent_id: m.agent_id,
        agent_name: m.agent_name,
        kb_id: m.kb_id,
        kb_name: m.kb_name,
      })),
    ).toEqual(rows);
    expect(got.data.total).toBe(3);
  });

  test('ai_list_kb and ai_get_kb: KnowledgebaseOutput as SQL has it', async () => {
    const rows = await sql(
      `SELECT id::text AS id, tenant_id::text AS tenant_id, cloud_account_id::text AS account_id, name, description, data, data_filename,
        data_format, data_size_bytes, status, kb_type, kb_source, integration_id::text AS integration_id, created_by, updated_by,
        ${TS('created_at')} AS created_at, ${TS('updated_at')} AS updated_at
      FROM ai_knowledgebase WHERE tenant_id = $1 AND cloud_account_id = $2 ORDER BY name`,
      [acme.id, AWS],
    );
    const fields =
      'account_id created_at created_by data data_filename data_format data_size_bytes description id integration_id kb_source kb_type name status tenant_id updated_at updated_by';
    const list = await call('ai_list_kb', `account_id: "${AWS}"`, `data { ${fields} } errors { code message }`);
    const expected = rows.map((r) => ({ ...r, data_size_bytes: Number(r.data_size_bytes) }));
    expect(list).toEqual({ data: expected, errors: null });
    const one = await call(
      'ai_get_kb',
      `account_id: "${AWS}", id: "${ACME_KB}"`,
      `data { ${fields} } errors { code message }`,
    );
    expect(one).toEqual({ data: expected.find((r) => r.id === ACME_KB), errors: null });
    for (const id of [GLOBEX_KB, STRAY.kb, NOT_FOUND]) {
      expect(
        await call('ai_get_kb', `account_id: "${AWS}", id: "${id}"`, 'data { id } errors { code message }'),
      ).toEqual({ data: null, errors: [{ code: 'not-found', message: `no knowledge base ${id} in this account` }] });
    }
    // The GCP account's knowledge base is not the AWS account's.
    expect((await call('ai_list_kb', `account_id: "${GCP}"`, 'data { name }')).data).toEqual([
      { name: 'GKE upgrade notes' },
    ]);
  });

  test('ai_list_gc and ai_get_gc: GlobalContextOutput as SQL has it', async () => {
    const rows = await sql(
      `SELECT id::text AS id, tenant_id::text AS tenant_id, cloud_account_id::text AS account_id, name, description, data, data_filename,
        data_format, data_size_bytes, status, created_by, ${TS('created_at')} AS created_at
      FROM ai_global_context WHERE tenant_id = $1 AND cloud_account_id = $2 ORDER BY name`,
      [acme.id, AWS],
    );
    const fields =
      'account_id created_at created_by data data_filename data_format data_size_bytes description id name status tenant_id';
    const list = await call('ai_list_gc', `account_id: "${AWS}"`, `data { ${fields} } errors { code }`);
    expect(list).toEqual({
      data: rows.map((r) => ({ ...r, data_size_bytes: Number(r.data_size_bytes) })),
      errors: null,
    });
    expect(list.data.map((g: Row) => g.id)).not.toContain(STRAY.gc);
    const one = await call(
      'ai_get_gc',
      `account_id: "${AWS}", id: "${ACME_GC}"`,
      'data { id name data } errors { code }',
    );
    expect(one.data).toEqual({
      id: ACME_GC,
      name: rows.find((r) => r.id === ACME_GC)!.name,
      data: rows.find((r) => r.id === ACME_GC)!.data,
    });
    for (const id of [GLOBEX_GC, STRAY.gc]) {
      expect(
        (await call('ai_get_gc', `account_id: "${AWS}", id: "${id}"`, 'data { id } errors { code }')).errors,
      ).toEqual([{ code: 'not-found' }]);
    }
  });

  test('ai_list_memory: newest first, paged with a default and a cap, filtered by conversation and message', async () => {
    const all = await sql(
      `SELECT id::text AS id, conversation_id::text AS conversation_id, message_id::text AS message_id, content, ${TS('created_at')} AS created_at
      FROM ai_memory WHERE tenant_id = $1 AND cloud_account_id = $2 ORDER BY created_at DESC, id DESC`,
      [acme.id, AWS],
    );
    const fields = 'id account_id conversation_id message_id memory_type content created_at';
    const first = await call('ai_list_memory', `account_id: "${AWS}"`, `data { ${fields} } errors { code }`);
    expect(first.data.length).toBe(50);
    expect(first.data.map((m: Row) => m.id)).toEqual(all.slice(0, 50).map((r) => r.id));
    expect(first.data[0]).toEqual({ ...all[0], account_id: AWS, memory_type: 'fact' });
    const capped = await call('ai_list_memory', `account_id: "${AWS}", limit: 1000`, 'data { id }');
    expect(capped.data.length).toBe(200);
    const page = await call('ai_list_memory', `account_id: "${AWS}", limit: 7, offset: 10`, 'data { id }');
    expect(page.data.map((m: Row) => m.id)).toEqual(all.slice(10, 17).map((r) => r.id));
    const byConversation = all.filter((r) => r.conversation_id === CONVERSATION_2);
    const got = await call(
      'ai_list_memory',
      `account_id: "${AWS}", conversation_id: "${CONVERSATION_2}", limit: 200`,
      'data { id }',
    );
    expect(got.data.map((m: Row) => m.id)).toEqual(byConversation.map((r) => r.id));
    const byMessage = await call(
      'ai_list_memory',
      `account_id: "${AWS}", message_id: "${MESSAGE}", limit: 200`,
      'data { id }',
    );
    expect(byMessage.data.map((m: Row) => m.id)).toEqual(all.filter((r) => r.message_id === MESSAGE).map((r) => r.id));
    const stray = await call(
      'ai_list_memory',
      `account_id: "${AWS}", conversation_id: "${STRAY.conversation}"`,
      'data { id }',
    );
    expect(stray.data).toEqual([]);
    expect((await failure('ai_list_memory', `account_id: "${AWS}", limit: 0`, 'data { id }')).extensions.code).toBe(
      'validation-failed',
    );
    expect((await failure('ai_list_memory', `account_id: "${AWS}", offset: -1`, 'data { id }')).extensions.code).toBe(
      'validation-failed',
    );
    expect(
      (await failure('ai_list_memory', `account_id: "${AWS}", conversation_id: "c-1"`, 'data { id }')).extensions.path,
    ).toBe('$.request.conversation_id');
  });

  test("ai_list_references: newest first, filtered by agent, conversation and message, never another tenant's", async () => {
    const all = await sql(
      `SELECT id::text AS id, agent_id::text AS agent_id, message_id::text AS message_id, reference_id, type, content, ${TS('created_at')} AS created_at
      FROM ai_reference WHERE tenant_id = $1 AND cloud_account_id = $2 ORDER BY created_at DESC, id DESC`,
      [acme.id, AWS],
    );
    const fields = 'id account_id agent_id conversation_id message_id reference_id type content created_at';
    const got = await call('ai_list_references', `account_id: "${AWS}"`, `data { ${fields} } errors { code }`);
    expect(got.data).toEqual(all.map((r) => ({ ...r, account_id: AWS, conversation_id: CONVERSATION })));
    const byAgent = await call(
      'ai_list_references',
      `account_id: "${AWS}", agent_id: "${ACME_AGENT}"`,
      'data { id reference_id }',
    );
    expect(byAgent.data.map((r: Row) => r.id)).toEqual(all.filter((r) => r.agent_id === ACME_AGENT).map((r) => r.id));
    expect(byAgent.data.map((r: Row) => r.reference_id)).not.toContain('globex-ref');
    const byMessage = await call(
      'ai_list_references',
      `account_id: "${AWS}", message_id: "${MESSAGE}", conversation_id: "${CONVERSATION}", limit: 2, offset: 1`,
      'data { id }',
    );
    expect(byMessage.data.map((r: Row) => r.id)).toEqual(
      all
        .filter((r) => r.message_id === MESSAGE)
        .slice(1, 3)
        .map((r) => r.id),
    );
  });

  test("ai_list_tools: the platform's tools and the account's own, with the account's agents using them", async () => {
    const rows = await sql(
      `SELECT t.id::text AS id, t.name, CASE WHEN t.tenant_id IS NULL THEN 'platform' ELSE 'account' END AS scope,
        coalesce((SELECT array_agg(a.id::text ORDER BY a.name) FROM ai_agent_tool at JOIN ai_agent a ON a.id = at.agent_id
          WHERE at.tool_id = t.id AND at.tenant_id = $1 AND a.tenant_id = $1 AND a.cloud_account_id = $2), '{}') AS agents
      FROM ai_tool t WHERE t.tenant_id IS NULL OR (t.tenant_id = $1 AND t.cloud_account_id = $2) ORDER BY t.name`,
      [acme.id, AWS],
    );
    const { data } = await call('ai_list_tools', `account_id: "${AWS}"`, 'data errors');
    expect(data.total).toBe(rows.length);
    expect(data.tools.map((t: Row) => [t.id, t.name, t.scope, t.agents.map((a: Row) => a.id)])).toEqual(
      rows.map((r) => [r.id, r.name, r.scope, [...r.agents]]),
    );
    expect(data.tools.map((t: Row) => t.name)).toContain('deploy_history');
    expect(data.tools.map((t: Row) => t.name)).not.toContain('globex_stray_tool');
    expect(data.tools.find((t: Row) => t.name === 'query_logs').input_schema).toMatchObject({
      type: 'object',
      required: ['query'],
    });
    // The platform tool the stray Globex agent uses shows Acme's agents only.
    expect(data.tools.find((t: Row) => t.id === '00000000-0070-4000-8000-000000000003').agents).toEqual([
      { id: '11111111-0072-4000-8000-000000000002', name: 'Cost advisor' },
    ]);
  });

  test('ai_list_models and ai_get_model_config: built-in analyst by default, the configured model when an endpoint is set', async () => {
    const platform = await sql(
      `SELECT provider, name FROM ai_model WHERE tenant_id IS NULL ORDER BY provider, name`,
      [],
    );
    const offline = (await call('ai_list_models', `account_id: "${AWS}"`, 'data errors')).data;
    expect(offline.models.map((m: Row) => m.name)).toEqual(['builtin-analyst', ...platform.map((p) => p.name)]);
    expect(offline.models.filter((m: Row) => m.available).map((m: Row) => m.name)).toEqual(['builtin-analyst']);
    expect(offline.default_model).toEqual({ provider: 'builtin', name: 'builtin-analyst' });
    expect((await call('ai_get_model_config', `account_id: "${AWS}"`, 'data errors')).data).toMatchObject({
      account_id: AWS,
      conversation_id: null,
      llm_model_name: 'builtin-analyst',
      source: 'builtin',
      available: true,
      answered_by: 'builtin',
    });

    const ai = server.started.actionsConfig.ai;
    const saved = { ...ai };
    Object.assign(ai, { baseUrl: 'http://127.0.0.1:9/v1', model: 'acme-llm' });
    try {
      const online = (await call('ai_list_models', `account_id: "${AWS}"`, 'data')).data;
      expect(online.models.slice(0, 2).map((m: Row) => [m.name, m.source, m.available, m.is_default])).toEqual([
        ['builtin-analyst', 'builtin', true, false],
        ['acme-llm', 'config', true, true],
      ]);
      expect(online.models.every((m: Row) => m.available)).toBe(true);
      expect(online.default_model).toEqual({ provider: 'openai-compatible', name: 'acme-llm' });
      const conv = (
        await call('ai_get_model_config', `account_id: "${AWS}", conversation_id: "${CONVERSATION}"`, 'data errors')
      ).data;
      expect(conv).toMatchObject({
        conversation_id: CONVERSATION,
        llm_provider: 'openai',
        llm_model_name: 'gpt-4o',
        source: 'conversation',
        available: true,
        answered_by: 'model:gpt-4o',
        context_window: 128000,
      });
      // A conversation without a model_config gets the default.
      expect(
        (await call('ai_get_model_config', `account_id: "${AWS}", conversation_id: "${CONVERSATION_2}"`, 'data')).data,
      ).toMatchObject({ llm_model_name: 'acme-llm', source: 'config' });
    } finally {
      Object.assign(ai, saved);
    }
    // Globex chose a default of its own: it wins over the configuration, but without an endpoint the built-in answers.
    const g = (await call('ai_list_models', `account_id: "${globex.cloudAccounts.aws}"`, 'data', globexAdmin)).data;
    expect(g.default_model).toEqual({ provider: 'openai', name: 'gpt-4o' });
    expect(g.models.find((m: Row) => m.source === 'tenant')).toMatchObject({
      name: 'gpt-4o',
      is_default: true,
      available: false,
    });
    expect(
      (await call('ai_get_model_config', `account_id: "${globex.cloudAccounts.aws}"`, 'data', globexAdmin)).data,
    ).toMatchObject({ llm_model_name: 'gpt-4o', source: 'tenant', available: false, answered_by: 'builtin' });
    expect(
      (await call('ai_list_models', `account_id: "${AWS}"`, 'data')).data.models.map((m: Row) => m.source),
    ).not.toContain('tenant');
    // Another tenant's conversation is not found; an id that is no uuid is refused.
    expect(
      await call(
        'ai_get_model_config',
        `account_id: "${AWS}", conversation_id: "${STRAY.conversation}"`,
        'data errors',
      ),
    ).toEqual({
      data: null,
      errors: [{ code: 'not-found', message: `no conversation ${STRAY.conversation} in this account` }],
    });
    expect(
      (await failure('ai_get_model_config', `account_id: "${AWS}", conversation_id: "abc"`, 'data')).extensions.code,
    ).toBe('validation-failed');
  });

  const GENERATED =
    'data { agent_id agent_step_response chain_name conversation_id message_id query response session_id status followup { data { chain_name conversation_id message_id response } } }';
  const generate = async (q: string, extra = '') =>
    (
      await call(
        'ai_generate_workflow',
        `account_id: "${AWS}", user_id: "${acme.users.admin.id}", query: ${JSON.stringify(q)}${extra}`,
        GENERATED,
      )
    ).data;

  test('ai_generate_workflow: known tasks, in a sensible order, with parameters and a schedule read from the request', async () => {
    const [{ n: before }] = await sql('SELECT count(*)::int AS n FROM workflows', []);
    const known = (await sql('SELECT name FROM workflow_task_definitions', [])).map((r) => r.name);
    const got = await generate(
      'Notify #ops on Slack after you scale the web deployment in namespace staging to 3 replicas, every day at 9',
      `, session_id: "s-1", conversation_id: "${CONVERSATION}"`,
    );
    expect(got).toMatchObject({
      chain_name: 'workflow_generator',
      status: 'success',
      followup: null,
      session_id: 's-1',
      conversation_id: CONVERSATION,
      agent_id: null,
    });
    expect(got.response.length).toBe(2);
    const def = JSON.parse(got.response[0]);
    expect(def.triggers).toEqual([{ type: 'schedule', params: { cron: '0 9 * * *' } }]);
    expect(def.tasks.map((t: Row) => t.type)).toEqual(['k8s_scale_workload', 'notify_slack']);
    expect(def.tasks.every((t: Row) => known.includes(t.type))).toBe(true);
    expect(def.tasks[0].params).toEqual({ namespace: 'staging', name: 'web', replicas: 3 });
    expect(def.tasks[1]).toMatchObject({
      depends_on: ['k8s_scale_workload'],
      params: { channel: '#ops', message: expect.any(String) },
    });
    expect(def.inputs).toEqual([]);
    expect(got.response[1]).toContain('nothing was saved');
    const [{ n: after }] = await sql('SELECT count(*)::int AS n FROM workflows', []);
    expect(after).toBe(before);
  });

  test('ai_generate_workflow: missing values become inputs and a follow-up; approvals gate actions; no match says so', async () => {
    const got = await generate(
      'Every weekday at 8pm stop idle dev instances after approval by alice.admin@acme.example.com, then post to #finops',
    );
    expect(got.status).toBe('needs_input');
    const def = JSON.parse(got.response[0]);
    expect(def.triggers[0].params.cron).toBe('0 20 * * 1-5');
    expect(def.tasks.map((t: Row) => t.type)).toEqual(['approval', 'cloud_resource_action', 'notify_slack']);
    expect(def.tasks[0].params).toEqual({ reviewers: ['alice.admin@acme.example.com'] });
    expect(def.tasks[1]).toMatchObject({
      if: 'tasks.approval.output.approved',
      params: { action: 'stop', resource_id: '{{inputs.cloud_resource_action_resource_id}}' },
    });
    expect(def.inputs.map((i: Row) => i.id)).toEqual(['cloud_resource_action_resource_id']);
    expect(got.followup.data).toMatchObject({
      chain_name: 'workflow_generator',
      response: [expect.stringContaining('cloud_resource_action_resource_id')],
    });

    const cost = JSON.parse(
      (await generate('When an anomaly is detected, sum the spend of the last 7 days by service')).response[0],
    );
    expect(cost.triggers).toEqual([{ type: 'event', params: { source: 'anomaly' } }]);
    expect(cost.tasks).toEqual([
      { id: 'query_cost', type: 'query_cost', params: { period: '7d', group_by: 'service' } },
    ]);

    const none = await generate('Bake a chocolate cake');
    expect(none.status).toBe('no_match');
    expect(JSON.parse(none.response[0]).tasks).toEqual([]);
    expect(none.response[1]).toContain('k8s_scale_workload');

    expect(
      (
        await failure(
          'ai_generate_workflow',
          `account_id: "${AWS}", user_id: "${acme.users.admin.id}", query: "  "`,
          'data { status }',
        )
      ).extensions.code,
    ).toBe('validation-failed');
    const foreignAgent = await failure(
      'ai_generate_workflow',
      `account_id: "${AWS}", user_id: "${acme.users.admin.id}", agent_id: "${STRAY.agent}", query: "scale web"`,
      'data { status }',
    );
    expect(foreignAgent.extensions).toMatchObject({ code: 'validation-failed', path: '$.request.agent_id' });
    expect((await generate('scale web to 2 replicas', `, agent_id: "${ACME_AGENT}"`)).agent_id).toBe(ACME_AGENT);
  });

  test('every operation refuses an account of another tenant and an account id that is no uuid', async () => {
    const ops: [string, string, string][] = [
      ['ai_list_agents', '', 'data'],
      ['ai_list_agents_with_kb_counts', '', 'data'],
      ['ai_list_agent_kbs', `, agent_id: "${ACME_AGENT}"`, 'data'],
      ['ai_list_kb', '', 'data { id }'],
      ['ai_get_kb', `, id: "${ACME_KB}"`, 'data { id }'],
      ['ai_list_kb_agent_mappings', '', 'data'],
      ['ai_list_kb_agents', `, kb_id: "${ACME_KB}"`, 'data'],
      ['ai_list_gc', '', 'data { id }'],
      ['ai_get_gc', `, id: "${ACME_GC}"`, 'data { id }'],
      ['ai_list_memory', '', 'data { id }'],
      ['ai_list_references', '', 'data { id }'],
      ['ai_list_tools', '', 'data'],
      ['ai_list_models', '', 'data'],
      ['ai_get_model_config', '', 'data'],
      ['ai_generate_workflow', `, user_id: "${acme.users.admin.id}", query: "scale web"`, 'data { status }'],
    ];
    for (const [field, extra, selection] of ops) {
      const foreign = await failure(field, `account_id: "${globex.cloudAccounts.aws}"${extra}`, selection);
      expect([field, foreign.extensions]).toEqual([field, { code: 'validation-failed', path: '$.request.account_id' }]);
      expect(foreign.message).toBe('request.account_id is not a cloud account of your tenant');
      const malformed = await failure(field, `account_id: "aws-prod"${extra}`, selection);
      expect([field, malformed.extensions.code]).toEqual([field, 'validation-failed']);
      expect(malformed.message).toContain('expected a uuid for request.account_id');
    }
  });
});
