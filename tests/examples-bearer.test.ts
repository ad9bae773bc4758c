import { DEMO } from '../demo/demo-data';
import { authEnv, bearer, claimsOf, exchange, gqlWith, tokenFor } from './support/auth';
import { backendName } from './support/database';
import { EXAMPLES, withIds } from './support/examples';
import { startTestServer, type TestServer } from './support/server';

/**
 * The reference's mutation examples, AiFollowup, FetchLogs and CreateTicket, sent as API consumers
 * send them: the document and variables verbatim (placeholders replaced by demo ids), with
 * `Authorization: Bearer <JWT>` from the real exchange of an API token of a demo user, and nothing
 * else (no admin secret). Each answer is checked against the database.
 */
const acme = DEMO.tenants.acme;
const globex = DEMO.tenants.globex;
const alice = acme.users.admin;
const ids = { account: acme.cloudAccounts.aws, integration: acme.integrationId };
const ENV = authEnv();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe(`reference examples with a Bearer JWT on ${backendName}`, () => {
  let server: TestServer;
  let jwt: string;
  const sqlJson = async (text: string, params: (string | null)[] = []) => {
    const [row] = await server.started.db.query(text, params);
    return JSON.parse(String(row.j));
  };
  const send = (name: 'AiFollowup' | 'FetchLogs' | 'CreateTicket', headers: Record<string, string> = bearer(jwt)) => {
    const ex = EXAMPLES[name];
    return gqlWith(server, headers, ex.query, withIds(ex.variables, ids));
  };

  beforeAll(async () => {
    server = await startTestServer({ env: ENV });
    // An API token of Alice, as `npm run admin -- create-token` makes it, exchanged through HTTP.
    const t = await tokenFor(server.started.db, alice.username, 'reference examples');
    const res = await exchange(server, alice.username, t.secret);
    expect(res.status).toBe(200);
    jwt = res.body.token;
    expect(claimsOf(jwt)).toMatchObject({ sub: alice.id, tenant_id: acme.id, role: 'tenant_admin', token_id: t.id });
  });
  afterAll(() => server.close());

  test('the examples are the reference’s requests', () => {
    expect(EXAMPLES.AiFollowup.query).toMatch(
      /^mutation AiFollowup\(\$request: AiFollowupResponseInput!\) \{\n {2}ai_followup_response\(request: \$request\) \{\n {4}conversation_id\n {4}response\n {4}references\n {4}status\n {2}\}\n\}$/,
    );
    expect(EXAMPLES.AiFollowup.variables).toEqual({
      request: {
        message: 'What are the top cost recommendations for my AWS account?',
        conversation_id: null,
        account_id: 'your-account-uuid',
      },
    });
    expect(withIds(EXAMPLES.AiFollowup.variables, ids)).toEqual({
      request: {
        message: 'What are the top cost recommendations for my AWS account?',
        conversation_id: null,
        account_id: ids.account,
      },
    });
  });

  test('without the JWT, or with a bad one, the examples are refused', async () => {
    const none = await send('FetchLogs', {});
    expect(none.status).toBe(401);
    expect(none.body.errors[0].extensions.code).toBe('access-denied');
    const bad = await send('CreateTicket', bearer(`${jwt.slice(0, -4)}AAAA`));
    expect(bad.status).toBe(401);
    expect(bad.body.errors[0].extensions.code).toBe('invalid-jwt');
  });

  test('AiFollowup: a new conversation, answered from the account’s recommendations, stored with its references', async () => {
    const res = await send('AiFollowup');
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const out = res.body.data.ai_followup_response;
    expect(Object.keys(out).sort()).toEqual(['conversation_id', 'references', 'response', 'status']);
    expect(out.conversation_id).toMatch(UUID);
    expect(out.status).toBe('completed');
    expect(typeof out.response).toBe('string');

    // The account's open recommendations with savings, largest first: what "top cost recommendations" cites first.
    const top = await sqlJson(
      `SELECT coalesce(json_agg(json_build_object('type', 'recommendation', 'id', id, 'title', coalesce(recommendation->>'title', rule_name, 'recommendation'))
         ORDER BY estimated_savings DESC, id), '[]')::text AS j
       FROM (SELECT * FROM recommendation WHERE tenant_id = $1::uuid AND cloud_account_id = $2::uuid AND NOT is_dismissed
               AND coalesce(status, 'Open') NOT IN ('Closed', 'Dismissed', 'Archive') AND estimated_savings > 0
             ORDER BY estimated_savings DESC, id LIMIT 5) r`,
      [acme.id, ids.account],
    );
    expect(top.length).toBeGreaterThan(0);
    expect(out.references.slice(0, top.length)).toEqual(top);
    const [acct] = await server.started.db.query('SELECT account_name FROM cloud_accounts WHERE id = $1::uuid', [
      ids.account,
    ]);
    expect(out.response).toContain(`Top cost recommendations for ${acct.account_name}`);
    for (const r of top) expect(out.response).toContain(`[recommendation:${r.id}]`);
    // Only records of the tenant are cited.
    for (const r of out.references.filter((x: { type: string }) => x.type === 'recommendation')) {
      const [own] = await server.started.db.query(
        'SELECT tenant_id::text AS t FROM recommendation WHERE id = $1::uuid',
        [r.id],
      );
      expect(own.t).toBe(acme.id);
    }

    // Stored: the conversation (Alice's, the account's), the question and the answer with its references.
    const conv = await sqlJson(
      `SELECT json_build_object('tenant_id', tenant_id, 'cloud_account_id', cloud_account_id, 'user_id', user_id, 'title', title)::text AS j
       FROM ai_conversation WHERE id = $1::uuid`,
      [out.conversation_id],
    );
    expect(conv).toEqual({
      tenant_id: acme.id,
      cloud_account_id: ids.account,
      user_id: alice.id,
      title: 'What are the top cost recommendations for my AWS account?',
    });
    const messages = await sqlJson(
      `SELECT json_agg(json_build_object('id', id, 'role', role, 'content', content, 'refs', refs, 'status', status, 'tenant_id', tenant_id) ORDER BY role DESC)::text AS j
       FROM ai_message WHERE conversation_id = $1::uuid`,
      [out.conversation_id],
    );
    expect(messages).toHaveLength(2);
    const [question, answer] = messages;
    expect(question).toMatchObject({
      role: 'user',
      content: 'What are the top cost recommendations for my AWS account?',
      refs: [],
      tenant_id: acme.id,
    });
    expect(answer).toMatchObject({
      role: 'assistant',
      content: out.response,
      refs: out.references,
      status: 'completed',
      tenant_id: acme.id,
    });
    const stored = await sqlJson(
      `SELECT coalesce(json_agg(json_build_object('type', type, 'id', reference_id, 'title', content) ORDER BY created_at, id), '[]')::text AS j
       FROM ai_reference WHERE message_id = $1::uuid AND tenant_id = $2::uuid AND cloud_account_id = $3::uuid`,
      [answer.id, acme.id, ids.account],
    );
    const key = (r: { type: string; id: string }) => `${r.type}:${r.id}`;
    expect(stored.map(key).sort()).toEqual(out.references.map(key).sort());
  });

  test('FetchLogs: the production lines of 2026-02-15 of the account, newest first, as SQL says', async () => {
    const res = await send('FetchLogs');
    expect(res.status).toBe(200);
    const want = await sqlJson(
      `SELECT coalesce(json_agg(json_build_object('timestamp', to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'severity', severity, 'message', message, 'labels', labels) ORDER BY ts DESC, id DESC), '[]')::text AS j
       FROM (SELECT * FROM logs WHERE tenant_id = $1::uuid AND cloud_account_id = $2::uuid AND labels->>'namespace' = 'production'
             AND ts BETWEEN '2026-02-15T00:00:00Z' AND '2026-02-15T23:59:59Z' ORDER BY ts DESC, id DESC LIMIT 100) l`,
      [acme.id, ids.account],
    );
    expect(want.length).toBeGreaterThan(0);
    expect(res.body).toEqual({ data: { logs_query: want } });
  });

  test('CreateTicket: a platform ticket of the JWT’s tenant and user (other x-hasura-* headers are ignored)', async () => {
    const [before] = await server.started.db.query(
      `SELECT coalesce(max(substring(ticket_id from '-([0-9]+)$')::bigint), 0)::int AS n, count(*)::int AS c FROM tickets WHERE tenant = $1::uuid AND project_key = 'OPS'`,
      [acme.id],
    );
    const res = await send('CreateTicket', {
      ...bearer(jwt),
      'x-hasura-tenant-id': globex.id,
      'x-hasura-user-id': globex.users.admin.id,
    });
    expect(res.status).toBe(200);
    const out = res.body.data.tickets_insert_one.data.insert_tickets_one;
    const n = Number(before.n) + 1;
    expect(res.body).toEqual({
      data: {
        tickets_insert_one: {
          data: {
            insert_tickets_one: {
              id: expect.stringMatching(UUID),
              ticket_id: `OPS-${n}`,
              url: `${ENV.NEXTAUTH_URL}/tickets/OPS-${n}`,
              message: `ticket OPS-${n} created in the platform`,
            },
          },
        },
      },
    });
    const stored = await sqlJson(
      `SELECT json_build_object('tenant', tenant, 'account_id', account_id, 'integration_id', integration_id, 'title', title, 'description', description,
         'severity', severity, 'project_key', project_key, 'source', source, 'ticket_id', ticket_id, 'url', url, 'status', status, 'created_by', created_by)::text AS j
       FROM tickets WHERE id = $1::uuid`,
      [out.id],
    );
    expect(stored).toEqual({
      tenant: acme.id,
      account_id: ids.account,
      integration_id: ids.integration,
      title: 'High CPU usage on prod-api-server',
      description: 'CPU consistently above 90% for the last 2 hours',
      severity: 'High',
      project_key: 'OPS',
      source: 'nudgebee',
      ticket_id: `OPS-${n}`,
      url: out.url,
      status: 'Open',
      created_by: alice.id,
    });
    const [after] = await server.started.db.query(
      `SELECT count(*)::int AS c FROM tickets WHERE tenant = $1::uuid AND project_key = 'OPS'`,
      [acme.id],
    );
    expect(Number(after.c)).toBe(Number(before.c) + 1);
    // The same request again: the next number.
    const again = await send('CreateTicket');
    expect(again.body.data.tickets_insert_one.data.insert_tickets_one.ticket_id).toBe(`OPS-${n + 1}`);
  });
});
