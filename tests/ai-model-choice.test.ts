import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEMO } from '../demo/demo-data';
import { backendName } from './support/database';
import { as, startTestServer, type TestServer } from './support/server';

/**
 * The model catalogue decides which model answers: the model named in a stand-in chat-completions
 * server's requests is the one ai_get_model_config reports, whether it comes from AI_MODEL, the
 * tenant's or the account's default in ai_model, or a conversation's model_config. A disabled choice
 * is not called: the built-in analyst answers and says why.
 */
const acme = DEMO.tenants.acme;
const AWS = acme.cloudAccounts.aws;
const admin = as('tenant_admin', acme.id, acme.users.admin.id);
const FOLLOWUP = `mutation($r: AiFollowupResponseInput!) { ai_followup_response(request: $r) { conversation_id response answered_by } }`;
const CONFIG = `query($r: AIGetModelConfigRequest!) { ai_get_model_config(request: $r) { data errors } }`;

/** A chat-completions endpoint that records the model of every request and answers with it. */
function recordingModel() {
  const models: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const model = String(JSON.parse(body).model);
      models.push(model);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          model,
          choices: [{ index: 0, message: { role: 'assistant', content: `answered by ${model}` } }],
          usage: { prompt_tokens: 5, completion_tokens: 2 },
        }),
      );
    });
  });
  return {
    models,
    listen: () =>
      new Promise<string>((resolve) =>
        server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
      ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe(`the model catalogue chooses the model on ${backendName}`, () => {
  const llm = recordingModel();
  let server: TestServer;
  const sql = (text: string, params: (string | null)[] = []) => server.started.db.query(text, params);
  /** Asks in a new (or the given) conversation; the model the endpoint was asked for, and the answer. */
  const ask = async (conversationId: string | null = null) => {
    const before = llm.models.length;
    const res = await server.gql(
      FOLLOWUP,
      { r: { message: 'What changed in spend?', conversation_id: conversationId, account_id: AWS } },
      admin,
    );
    expect(res.body.errors).toBeUndefined();
    return { asked: llm.models.slice(before), out: res.body.data.ai_followup_response };
  };
  const reported = async (conversationId?: string) =>
    (
      await server.gql(
        CONFIG,
        { r: { account_id: AWS, ...(conversationId ? { conversation_id: conversationId } : {}) } },
        admin,
      )
    ).body.data.ai_get_model_config.data;

  beforeAll(async () => {
    server = await startTestServer({ env: { AI_BASE_URL: `${await llm.listen()}/v1`, AI_MODEL: 'configured-model' } });
  });
  afterAll(async () => {
    await server.close();
    await llm.close();
  });

  test('without a default of the tenant: AI_MODEL', async () => {
    const { asked, out } = await ask();
    expect(asked).toEqual(['configured-model']);
    expect(out).toMatchObject({ response: 'answered by configured-model', answered_by: 'model:configured-model' });
    expect(await reported()).toMatchObject({
      llm_model_name: 'configured-model',
      answered_by: 'model:configured-model',
    });
  });

  test("the tenant's default, then the account's default over it", async () => {
    await sql(
      `INSERT INTO ai_model (tenant_id, provider, name, is_default) VALUES ($1::uuid, 'openai', 'tenant-choice', true)`,
      [acme.id],
    );
    expect((await ask()).asked).toEqual(['tenant-choice']);
    expect(await reported()).toMatchObject({ llm_model_name: 'tenant-choice', source: 'tenant' });
    await sql(
      `INSERT INTO ai_model (tenant_id, cloud_account_id, provider, name, is_default) VALUES ($1::uuid, $2::uuid, 'openai', 'account-choice', true)`,
      [acme.id, AWS],
    );
    expect((await ask()).asked).toEqual(['account-choice']);
    expect(await reported()).toMatchObject({ llm_model_name: 'account-choice', source: 'account' });
  });

  test("a conversation's model_config, for that conversation only", async () => {
    const { out } = await ask();
    await sql(
      `UPDATE ai_conversation SET model_config = '{"llm_model_name": "conversation-choice"}' WHERE id = $1::uuid`,
      [out.conversation_id],
    );
    expect((await ask(out.conversation_id)).asked).toEqual(['conversation-choice']);
    expect(await reported(out.conversation_id)).toMatchObject({
      llm_model_name: 'conversation-choice',
      source: 'conversation',
    });
    expect((await ask()).asked).toEqual(['account-choice']);
  });

  test('a conversation naming a disabled model: not called, the built-in analyst says why', async () => {
    await sql(
      `INSERT INTO ai_model (tenant_id, provider, name, enabled) VALUES ($1::uuid, 'openai', 'switched-off', false)`,
      [acme.id],
    );
    const { out } = await ask();
    await sql(
      `UPDATE ai_conversation SET model_config = '{"llm_model_name": "switched-off", "llm_provider": "openai"}' WHERE id = $1::uuid`,
      [out.conversation_id],
    );
    const { asked, out: again } = await ask(out.conversation_id);
    expect(asked).toEqual([]);
    expect(again.answered_by).toBe('builtin');
    expect(again.response).toContain('the model switched-off is disabled in the model catalogue');
    expect(await reported(out.conversation_id)).toMatchObject({
      llm_model_name: 'switched-off',
      available: false,
      answered_by: 'builtin',
    });
  });

  test('usage is recorded under the model that answered', async () => {
    const rows = await sql(
      `SELECT model, count(*)::int AS n FROM ai_usage WHERE tenant_id = $1::uuid GROUP BY model ORDER BY model`,
      [acme.id],
    );
    expect(rows.map((r) => r.model)).toEqual([
      'account-choice',
      'configured-model',
      'conversation-choice',
      'tenant-choice',
    ]);
  });
});
