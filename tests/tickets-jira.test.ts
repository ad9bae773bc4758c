import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { serve } from '@hono/node-server';
import { loadConfig } from '../engine/core/config';
import { startEngine, type Started } from '../engine/main';
import { DEMO } from '../demo/demo-data';
import { authEnv } from './support/auth';
import { backendName, createTestDatabase, type TestDatabase } from './support/database';
import { ADMIN_SECRET, as, poster, type GqlResult } from './support/server';
import { freePort } from './support/ports';

/**
 * tickets_insert_one with a Jira integration (a row of `integrations`, sql/0026): the issue is created
 * through Jira's REST API (v2) and the ticket stored with Jira's key and browse URL.
 *
 * The Jira here is a stand-in on a loopback port answering POST /rest/api/2/issue as Jira does, and
 * recording what it receives: Basic authorization of email:api_token, the project key, summary,
 * description, priority (the severity mapped) and issue type. Jira failing (401/403, 400 with
 * errorMessages, 5xx, no key, unreachable, timeout) is an `action-error` saying "no ticket was stored",
 * and nothing is. The api tokens are made per run; none may appear in any answer, log line or row.
 * The engine runs with a logger of this file's own so that its log can be searched too.
 */
const acme = DEMO.tenants.acme;
const globex = DEMO.tenants.globex;
const alice = acme.users.admin;
const admin = as('tenant_admin', acme.id, alice.id);
const ACCOUNT = acme.cloudAccounts.aws;
const ENV = authEnv({ JIRA_TIMEOUT_MS: '2000' });

const TICKET = `mutation T($input: TicketsInsertOneInput!) { tickets_insert_one(object: $input) { data { insert_tickets_one { id ticket_id url message } } } }`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// ---------------------------------------------------------------------------------------------
// The stand-in Jira.

interface Received {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

interface StandIn {
  url: string;
  requests: Received[];
  /** When set, answers instead of the default (201 with the next key). */
  override: ((req: Received, res: ServerResponse) => void) | null;
  close(): Promise<void>;
}

async function startJira(): Promise<StandIn> {
  const requests: Received[] = [];
  let issues = 0;
  const self: StandIn = {
    url: '',
    requests,
    override: null,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
      const r: Received = {
        method: req.method ?? '',
        path: new URL(req.url ?? '/', 'http://jira.invalid').pathname,
        headers: req.headers,
        body,
      };
      requests.push(r);
      if (self.override) return self.override(r, res);
      if (r.method !== 'POST' || !r.path.endsWith('/rest/api/2/issue')) {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ errorMessages: ['not found'] }));
        return;
      }
      const project = (r.body as { fields?: { project?: { key?: string } } })?.fields?.project?.key ?? 'X';
      issues++;
      const id = String(10000 + issues);
      res
        .writeHead(201, { 'content-type': 'application/json' })
        .end(JSON.stringify({ id, key: `${project}-${6 + issues}`, self: `${self.url}/jira/rest/api/2/issue/${id}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  self.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return self;
}

// ---------------------------------------------------------------------------------------------

const token = () => randomBytes(24).toString('base64url');
const basic = (email: string, apiToken: string) => Buffer.from(`${email}:${apiToken}`).toString('base64');

describe(`tickets_insert_one with Jira on ${backendName}`, () => {
  let jira: StandIn;
  let database: TestDatabase;
  let started: Started;
  let http: ReturnType<typeof serve>;
  let post: ReturnType<typeof poster>;
  /** Everything the engine logged, and everything written to the console or stdout/stderr meanwhile. */
  const logged: string[] = [];
  /** Every answer's text. */
  const answers: string[] = [];
  const restore: (() => void)[] = [];

  const ACME = { email: 'bot@acme.example.com', token: token() };
  const CUSTOM = { email: 'bot2@acme.example.com', token: token() };
  const GLOBEX = { email: 'bot@globex.example.com', token: token() };
  const DOWN = { email: 'bot3@acme.example.com', token: token() };
  const secrets = () => [ACME, CUSTOM, GLOBEX, DOWN].flatMap((c) => [c.token, basic(c.email, c.token)]);
  const ids = { jira: '', custom: '', globex: '', down: '', disabled: '', github: '', broken: '' };

  const gql = async (variables: Record<string, unknown>, headers = admin): Promise<GqlResult> => {
    const res = await post('/api/graphql', JSON.stringify({ query: TICKET, variables }), {
      'x-hasura-admin-secret': ADMIN_SECRET,
      ...headers,
    });
    answers.push(res.text);
    return res;
  };
  const create = (input: Record<string, unknown>, headers = admin) =>
    gql(
      {
        input: {
          title: 'Disk full on db-1',
          project_key: 'OPS',
          integration_id: ids.jira,
          account_id: ACCOUNT,
          ...input,
        },
      },
      headers,
    );
  const db = () => started.db;
  const count = async () => Number((await db().query('SELECT count(*)::int AS n FROM tickets'))[0].n);
  const sequences = async () =>
    JSON.stringify(
      await db().query('SELECT tenant::text, project_key, last_value::text FROM ticket_sequences ORDER BY 1, 2'),
    );
  const lastRequest = () => jira.requests[jira.requests.length - 1];
  const integration = async (tenant: string, type: string, config: Record<string, unknown>, enabled = true) =>
    String(
      (
        await db().query(
          'INSERT INTO integrations (tenant_id, name, integration_type, config, enabled) VALUES ($1::uuid, $2::text, $3::text, $4::jsonb, $5::boolean) RETURNING id::text AS id',
          [tenant, `${type} test`, type, JSON.stringify(config), String(enabled)],
        )
      )[0].id,
    );

  beforeAll(async () => {
    const capture = (target: { write: (...a: never[]) => boolean }) => {
      const original = target.write;
      target.write = ((chunk: unknown, ...rest: unknown[]) => {
        logged.push(String(chunk));
        return (original as (...a: unknown[]) => boolean).call(target, chunk, ...rest);
      }) as typeof target.write;
      restore.push(() => (target.write = original));
    };
    capture(process.stdout as never);
    capture(process.stderr as never);
    for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      const spy = jest
        .spyOn(console, level)
        .mockImplementation((...a: unknown[]) => void logged.push(a.map(String).join(' ')));
      restore.push(() => spy.mockRestore());
    }

    jira = await startJira();
    database = await createTestDatabase();
    const config = loadConfig({ ADMIN_SECRET, SEED_DEMO_DATA: 'true', ...database.env, ...ENV });
    // An empty database (on PGlite a copy of the one initdb made): the engine migrates and seeds it.
    config.dataDirSnapshot = database.snapshot;
    started = await startEngine(config, (entry) => void logged.push(JSON.stringify(entry)));
    http = serve({ fetch: started.app.fetch, createServer: started.createServer, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((resolve) => (http.listening ? resolve() : http.once('listening', () => resolve())));
    post = poster(`http://127.0.0.1:${(http.address() as AddressInfo).port}`);

    // A context path and a trailing slash, as Jira Data Center URLs often have.
    ids.jira = await integration(acme.id, 'jira', {
      base_url: `${jira.url}/jira/`,
      email: ACME.email,
      api_token: ACME.token,
    });
    ids.custom = await integration(acme.id, 'jira', {
      base_url: `${jira.url}/jira`,
      email: CUSTOM.email,
      api_token: CUSTOM.token,
      issue_type: 'Bug',
      priorities: { High: 'P1', critical: 'P0' },
    });
    ids.globex = await integration(globex.id, 'jira', {
      base_url: `${jira.url}/jira`,
      email: GLOBEX.email,
      api_token: GLOBEX.token,
    });
    ids.down = await integration(acme.id, 'jira', {
      base_url: `http://127.0.0.1:${await freePort()}`,
      email: DOWN.email,
      api_token: DOWN.token,
    });
    ids.disabled = await integration(
      acme.id,
      'jira',
      { base_url: `${jira.url}/jira`, email: ACME.email, api_token: ACME.token },
      false,
    );
    ids.github = await integration(acme.id, 'github', { token: ACME.token });
    ids.broken = await integration(acme.id, 'jira', { base_url: `${jira.url}/jira`, email: ACME.email });
  });

  afterAll(async () => {
    if (http) await new Promise<void>((resolve) => http.close(() => resolve()));
    await started?.close();
    await database?.drop();
    await jira?.close();
    for (const r of restore.reverse()) r();
  });

  afterEach(() => {
    jira.override = null;
  });

  describe('created in Jira', () => {
    test('the request Jira receives, the answer with Jira’s key and browse URL, the row stored', async () => {
      const before = await count();
      const n = jira.requests.length;
      const res = await create({
        description: 'Free space below 5% on /var/lib/postgresql',
        severity: 'High',
        source: 'nudgebee',
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: {
          tickets_insert_one: {
            data: {
              insert_tickets_one: {
                id: expect.stringMatching(UUID),
                ticket_id: 'OPS-7',
                url: `${jira.url}/jira/browse/OPS-7`,
                message: 'ticket OPS-7 created in Jira',
              },
            },
          },
        },
      });
      expect(jira.requests.length).toBe(n + 1);
      const r = lastRequest();
      expect(r.method).toBe('POST');
      expect(r.path).toBe('/jira/rest/api/2/issue');
      expect(r.headers.authorization).toBe(`Basic ${basic(ACME.email, ACME.token)}`);
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.body).toEqual({
        fields: {
          project: { key: 'OPS' },
          summary: 'Disk full on db-1',
          issuetype: { name: 'Task' },
          description: 'Free space below 5% on /var/lib/postgresql',
          priority: { name: 'High' },
        },
      });

      const id = res.body.data.tickets_insert_one.data.insert_tickets_one.id;
      const [row] = await db().query(
        `SELECT json_build_object('tenant', tenant, 'account_id', account_id, 'integration_id', integration_id, 'platform', platform, 'source', source,
           'ticket_id', ticket_id, 'reference_id', reference_id, 'ticket_type', ticket_type, 'project_key', project_key, 'title', title,
           'description', description, 'severity', severity, 'status', status, 'url', url, 'created_by', created_by, 'error_message', error_message)::text AS j
         FROM tickets WHERE id = $1::uuid`,
        [id],
      );
      expect(JSON.parse(String(row.j))).toEqual({
        tenant: acme.id,
        account_id: ACCOUNT,
        integration_id: ids.jira,
        platform: 'jira',
        source: 'nudgebee',
        ticket_id: 'OPS-7',
        reference_id: 'OPS-7',
        ticket_type: 'Task',
        project_key: 'OPS',
        title: 'Disk full on db-1',
        description: 'Free space below 5% on /var/lib/postgresql',
        severity: 'High',
        status: 'Open',
        url: `${jira.url}/jira/browse/OPS-7`,
        created_by: alice.id,
        error_message: null,
      });
      expect(await count()).toBe(before + 1);
    });

    test.each([
      ['Critical', 'Highest'],
      ['high', 'High'],
      ['Medium', 'Medium'],
      ['moderate', 'Medium'],
      ['LOW', 'Low'],
      ['info', 'Lowest'],
      [' low ', 'Low'],
      ['Sev9', undefined],
      [null, undefined],
    ])('severity %j is Jira priority %j by default', async (severity, priority) => {
      const res = await create({ severity, description: null });
      expect(res.body.data.tickets_insert_one.data.insert_tickets_one.ticket_id).toMatch(/^OPS-\d+$/);
      expect(lastRequest().body.fields.priority).toEqual(priority === undefined ? undefined : { name: priority });
      expect(lastRequest().body.fields).not.toHaveProperty('description');
    });

    test('the integration’s issue_type and priorities; ticket_type wins over issue_type', async () => {
      const bug = await create({ integration_id: ids.custom, severity: 'High', project_key: 'SRE' });
      const out = bug.body.data.tickets_insert_one.data.insert_tickets_one;
      expect(out.ticket_id).toMatch(/^SRE-\d+$/);
      expect(lastRequest().headers.authorization).toBe(`Basic ${basic(CUSTOM.email, CUSTOM.token)}`);
      expect(lastRequest().body.fields).toMatchObject({
        project: { key: 'SRE' },
        issuetype: { name: 'Bug' },
        priority: { name: 'P1' },
      });
      const [row] = await db().query('SELECT ticket_type, project_key FROM tickets WHERE id = $1::uuid', [out.id]);
      expect(row).toEqual({ ticket_type: 'Bug', project_key: 'SRE' });
      // Looked up as written, then in lower case; the mapping replaces the default one (no Low there).
      await create({ integration_id: ids.custom, severity: 'Critical' });
      expect(lastRequest().body.fields.priority).toEqual({ name: 'P0' });
      await create({ integration_id: ids.custom, severity: 'Low' });
      expect(lastRequest().body.fields).not.toHaveProperty('priority');
      const incident = await create({ integration_id: ids.custom, ticket_type: 'Incident' });
      expect(lastRequest().body.fields.issuetype).toEqual({ name: 'Incident' });
      const [row2] = await db().query('SELECT ticket_type FROM tickets WHERE id = $1::uuid', [
        incident.body.data.tickets_insert_one.data.insert_tickets_one.id,
      ]);
      expect(row2.ticket_type).toBe('Incident');
    });

    test('additional_fields go to Jira; the operation’s own fields win over them', async () => {
      await create({
        additional_fields: {
          labels: ['finops'],
          components: [{ name: 'db' }],
          summary: 'not this',
          project: { key: 'EVIL' },
        },
      });
      expect(lastRequest().body.fields).toMatchObject({
        labels: ['finops'],
        components: [{ name: 'db' }],
        summary: 'Disk full on db-1',
        project: { key: 'OPS' },
      });
      const bad = await create({ additional_fields: ['x'] });
      expect(bad.body.errors[0].extensions).toEqual({ code: 'validation-failed', path: '$.object.additional_fields' });
    });
  });

  describe('without a Jira integration', () => {
    test('an id the integrations table does not hold: the platform’s own ticket id and url; Jira is not asked', async () => {
      const n = jira.requests.length;
      const [max] = await db().query(
        `SELECT coalesce(max(substring(ticket_id from '-([0-9]+)$')::bigint), 0)::int AS n FROM tickets WHERE tenant = $1::uuid AND project_key = 'PLAT'`,
        [acme.id],
      );
      const res = await create({ integration_id: acme.integrationId, project_key: 'PLAT', severity: 'High' });
      const out = res.body.data.tickets_insert_one.data.insert_tickets_one;
      const num = Number(max.n) + 1;
      expect(out).toEqual({
        id: expect.stringMatching(UUID),
        ticket_id: `PLAT-${num}`,
        url: `${ENV.NEXTAUTH_URL}/tickets/PLAT-${num}`,
        message: `ticket PLAT-${num} created in the platform`,
      });
      const again = (await create({ integration_id: acme.integrationId, project_key: 'PLAT' })).body.data
        .tickets_insert_one.data.insert_tickets_one;
      expect(again.ticket_id).toBe(`PLAT-${num + 1}`);
      expect(jira.requests.length).toBe(n);
      const [row] = await db().query(
        'SELECT tenant::text AS tenant, integration_id::text AS integration_id, platform, ticket_id, url FROM tickets WHERE id = $1::uuid',
        [out.id],
      );
      expect(row).toEqual({
        tenant: acme.id,
        integration_id: acme.integrationId,
        platform: 'platform',
        ticket_id: `PLAT-${num}`,
        url: out.url,
      });
    });

    test('a disabled integration, one that is not Jira, or one missing its token: refused, nothing stored, Jira not asked', async () => {
      const before = await count();
      const n = jira.requests.length;
      const disabled = await create({ integration_id: ids.disabled });
      expect(disabled.body.errors).toEqual([
        {
          message: `integration ${ids.disabled} is disabled`,
          extensions: { code: 'validation-failed', path: '$.object.integration_id' },
        },
      ]);
      const github = await create({ integration_id: ids.github });
      expect(github.body.errors[0].extensions).toEqual({ code: 'not-supported', path: '$.object.integration_id' });
      const broken = await create({ integration_id: ids.broken });
      expect(broken.body.errors).toEqual([
        {
          message: `the Jira integration ${ids.broken} is not configured: api_token missing`,
          extensions: { code: 'action-error', path: '$.object' },
        },
      ]);
      expect(await count()).toBe(before);
      expect(jira.requests.length).toBe(n);
    });
  });

  describe('Jira failing: a clear error, nothing stored', () => {
    /** Sends a ticket with Jira answering `answer`; checks the one error, that nothing was stored, and returns the message. */
    const failing = async (answer: StandIn['override'], input: Record<string, unknown> = {}): Promise<string> => {
      const before = await count();
      const seq = await sequences();
      jira.override = answer;
      const res = await create({ severity: 'High', description: 'x', ...input });
      expect(res.status).toBe(200);
      expect(res.body.data).toBeUndefined();
      expect(res.body.errors).toHaveLength(1);
      expect(res.body.errors[0].extensions).toEqual({ code: 'action-error', path: '$.object' });
      expect(await count()).toBe(before);
      expect(await sequences()).toBe(seq);
      const pending = await db().query(`SELECT 1 FROM tickets WHERE ticket_id LIKE '%-pending'`);
      expect(pending).toEqual([]);
      return res.body.errors[0].message;
    };
    const json = (status: number, body: unknown) => (_r: Received, res: ServerResponse) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

    test('401 and 403: the credentials were refused', async () => {
      expect(
        await failing((_r, res) =>
          res.writeHead(401, { 'content-type': 'text/html' }).end('<html>Unauthorized (*^_^*)</html>'),
        ),
      ).toBe("Jira refused the integration's credentials (HTTP 401); no ticket was stored");
      expect(
        await failing(json(403, { errorMessages: ['You do not have permission to create issues in this project.'] })),
      ).toBe("Jira refused the integration's credentials (HTTP 403); no ticket was stored");
    });

    test('400 with errorMessages and errors: Jira’s words', async () => {
      const msg = await failing(
        json(400, {
          errorMessages: ["Project 'OPS' does not exist."],
          errors: { priority: "Priority name 'High' is not valid", issuetype: 'Specify a valid issue type' },
        }),
      );
      expect(msg).toBe(
        "Jira refused the issue (HTTP 400): Project 'OPS' does not exist.; priority: Priority name 'High' is not valid; issuetype: Specify a valid issue type; no ticket was stored",
      );
    });

    test('a proxy echoing the request: neither the token nor the Authorization value come back', async () => {
      const msg = await failing((r, res) =>
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(
            JSON.stringify({ errorMessages: [`bad request with ${r.headers.authorization}`, `token=${ACME.token}`] }),
          ),
      );
      expect(msg).toBe(
        'Jira refused the issue (HTTP 400): bad request with Basic ***; token=***; no ticket was stored',
      );
    });

    test('5xx with a page, and 2xx without an issue key', async () => {
      expect(
        await failing((_r, res) =>
          res.writeHead(503, { 'content-type': 'text/html' }).end('<html><h1>Service Unavailable</h1></html>'),
        ),
      ).toBe('Jira refused the issue (HTTP 503); no ticket was stored');
      expect(await failing(json(201, { id: '10001' }))).toBe(
        'Jira answered without an issue key; no ticket was stored',
      );
      expect(
        await failing((_r, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>log in</html>')),
      ).toBe('Jira answered without an issue key; no ticket was stored');
      expect(await failing(json(201, { key: 'OPS-7; DROP TABLE tickets' }))).toBe(
        'Jira answered without an issue key; no ticket was stored',
      );
    });

    test('a redirect (a login page) is not followed', async () => {
      const msg = await failing((_r, res) => res.writeHead(302, { location: `${jira.url}/login.jsp` }).end());
      expect(msg).toMatch(/^Jira could not be reached.*; no ticket was stored$/);
      expect(lastRequest().path).toBe('/jira/rest/api/2/issue');
    });

    test('unreachable', async () => {
      expect(await failing(null, { integration_id: ids.down })).toBe(
        'Jira could not be reached (ECONNREFUSED); no ticket was stored',
      );
    });

    test('no answer within JIRA_TIMEOUT_MS', async () => {
      const t = Date.now();
      expect(await failing(() => undefined)).toBe('Jira did not answer within 2000 ms; no ticket was stored');
      expect(Date.now() - t).toBeGreaterThanOrEqual(1900);
    }, 20_000);

    test('the server goes on: the next ticket is created', async () => {
      const res = await create({});
      expect(res.body.data.tickets_insert_one.data.insert_tickets_one.ticket_id).toMatch(/^OPS-\d+$/);
    });
  });

  describe('tenants', () => {
    test('another tenant’s integration id is refused; its Jira is not asked and nothing is stored', async () => {
      const before = await count();
      const n = jira.requests.length;
      const res = await create({ integration_id: ids.globex });
      expect(res.body).toEqual({
        errors: [
          {
            message: 'object.integration_id is not an integration of your tenant',
            extensions: { code: 'validation-failed', path: '$.object.integration_id' },
          },
        ],
      });
      expect(jira.requests.length).toBe(n);
      expect(await count()).toBe(before);
      // It is Globex's to use, with Globex's credentials.
      const theirs = await create(
        { integration_id: ids.globex, account_id: globex.cloudAccounts.aws },
        as('tenant_admin', globex.id, globex.users.admin.id),
      );
      expect(theirs.body.data.tickets_insert_one.data.insert_tickets_one.url).toMatch(
        new RegExp(`^${jira.url}/jira/browse/OPS-\\d+$`),
      );
      expect(lastRequest().headers.authorization).toBe(`Basic ${basic(GLOBEX.email, GLOBEX.token)}`);
      const [row] = await db().query('SELECT tenant::text AS tenant FROM tickets WHERE id = $1::uuid', [
        theirs.body.data.tickets_insert_one.data.insert_tickets_one.id,
      ]);
      expect(row.tenant).toBe(globex.id);
    });

    test('read-only users have no tickets_insert_one', async () => {
      const n = jira.requests.length;
      const res = await create({}, as('tenant_admin_readonly', acme.id, acme.users.readonly.id));
      expect(res.body.errors[0].extensions.code).toBe('validation-failed');
      expect(jira.requests.length).toBe(n);
    });
  });

  test('no api token in any answer, log line or stored ticket', async () => {
    // The capture works: the engine logged its start-up (migrations, demo data).
    expect(logged.some((l) => l.includes('seeded the demo data set'))).toBe(true);
    expect(answers.length).toBeGreaterThan(20);
    for (const secret of secrets()) {
      for (const text of [...answers, ...logged]) expect(text).not.toContain(secret);
      const [row] = await db().query(`SELECT count(*)::int AS n FROM tickets t WHERE strpos(t::text, $1::text) > 0`, [
        secret,
      ]);
      expect(Number(row.n)).toBe(0);
    }
  });
});
