import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEMO } from '../demo/demo-data';
import { backendName } from './support/database';
import { as, startTestServer, type TestServer } from './support/server';

/**
 * A mutation of actions only runs outside any transaction of the engine's: while a handler waits on
 * another service (here a language model that answers only when the test lets it), other requests are
 * answered and no connection sits idle in a transaction. On PGlite, whose one connection a transaction
 * holds, the waiting request would otherwise stall every other one.
 * A mutation that also changes a table keeps its action in the request's transaction: a failing action
 * rolls the table change back.
 */
const acme = DEMO.tenants.acme;
const admin = as('tenant_admin', acme.id, acme.users.admin.id);
const FOLLOWUP = `mutation($r: AiFollowupResponseInput!) { ai_followup_response(request: $r) { conversation_id response status } }`;

/** A chat-completions endpoint that holds every request until `release()`. */
function heldModel() {
  const waiting: ServerResponse[] = [];
  let arrived: () => void = () => undefined;
  let firstArrival = new Promise<void>((resolve) => (arrived = resolve));
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      waiting.push(res);
      arrived();
    });
  });
  const answer = (res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        choices: [{ index: 0, message: { role: 'assistant', content: 'The model answered.' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
      }),
    );
  };
  return {
    listen: () =>
      new Promise<string>((resolve) =>
        server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
      ),
    arrived: () => firstArrival,
    release: () => {
      waiting.splice(0).forEach(answer);
      firstArrival = new Promise<void>((resolve) => (arrived = resolve));
    },
    close: () =>
      new Promise<void>((resolve) => {
        waiting.splice(0).forEach((r) => r.destroy());
        server.close(() => resolve());
      }),
  };
}

describe(`actions outside the engine's transaction on ${backendName}`, () => {
  const model = heldModel();
  let server: TestServer;

  beforeAll(async () => {
    const url = await model.listen();
    server = await startTestServer({
      env: { AI_BASE_URL: `${url}/v1`, AI_API_KEY: 'test-key-made-here', AI_TIMEOUT_MS: '20000' },
    });
  });
  afterAll(async () => {
    await server.close();
    await model.close();
  });

  test('while the model is asked, other requests are answered and no connection waits in a transaction', async () => {
    const pending = server.gql(
      FOLLOWUP,
      { r: { message: 'Why did spend rise?', conversation_id: null, account_id: acme.cloudAccounts.aws } },
      admin,
    );
    await model.arrived();
    // The model has not answered: a query (and a write) must still get through.
    const read = await server.gql('{ cloud_accounts_aggregate { aggregate { count } } }', {}, admin);
    expect(read.body.data.cloud_accounts_aggregate.aggregate.count).toBe(DEMO.perTenant.cloudAccounts);
    const conversations = await server.started.db.query(
      `SELECT count(*)::int AS n FROM ai_conversation WHERE tenant_id = $1::uuid`,
      [acme.id],
    );
    expect(conversations[0].n).toBeGreaterThan(0); // the question and its conversation are stored already
    if (backendName === 'PostgreSQL') {
      const idle = await server.started.db.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`,
      );
      expect(idle[0].n).toBe(0);
    }
    model.release();
    const res = await pending;
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.ai_followup_response).toMatchObject({ response: 'The model answered.', status: 'completed' });
  });

  test('an action beside a table mutation shares its transaction: the action failing undoes the table change', async () => {
    const doc = `mutation {
      insert_tags_one: update_cloud_accounts(where: {id: {_eq: "${acme.cloudAccounts.aws}"}}, _set: {account_name: "renamed in a failed mutation"}) { affected_rows }
      ai_followup_response(request: {message: "", account_id: "${acme.cloudAccounts.aws}"}) { status }
    }`;
    const before = await server.started.db.query('SELECT account_name FROM cloud_accounts WHERE id = $1::uuid', [
      acme.cloudAccounts.aws,
    ]);
    const res = await server.gql(doc, {}, admin);
    expect(res.body.errors[0]).toMatchObject({
      message: 'request.message must not be empty',
      extensions: { code: 'validation-failed' },
    });
    const after = await server.started.db.query('SELECT account_name FROM cloud_accounts WHERE id = $1::uuid', [
      acme.cloudAccounts.aws,
    ]);
    expect(after).toEqual(before);
  });
});
