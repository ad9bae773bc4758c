import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { loadConfig } from '../engine/core/config';
import { startEngine } from '../engine/main';
import { DEMO } from '../demo/demo-data';
import { INCIDENT_KINDS, seedAiIncidents, type IncidentKind, type SeededIncidents } from './support/ai-incidents';
import { backendName, createTestDatabase } from './support/database';
import { ADMIN_SECRET, as, poster, startTestServer, type GqlResult, type TestServer } from './support/server';

/**
 * AI-assisted analysis (actions/ai/) through HTTP, as a tenant's users: ai_get_rca,
 * ai_get_recommendation, ai_budget_status and ai_followup_response checked against SQL written here;
 * another tenant's events, conversations and stray rows (Globex rows put on Acme's account id) never
 * reach an answer; the built-in analyst names the right cause first on the seeded incidents
 * (tests/support/ai-incidents.ts), citing records that exist; and, with a stand-in chat-completions
 * server on loopback, the evidence reaches the model, usage is recorded and budgeted, the API key
 * stays out of answers and logs, and a failing or slow model leaves the answer to the built-in analyst.
 */
const acme = DEMO.tenants.acme;
const globex = DEMO.tenants.globex;
const AWS: string = acme.cloudAccounts.aws;
const GCP: string = acme.cloudAccounts.gcp;
const admin = as('tenant_admin', acme.id, acme.users.admin.id);
const readonly = as('tenant_admin_readonly', acme.id, acme.users.readonly.id);
const globexAdmin = as('tenant_admin', globex.id, globex.users.admin.id);

type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Ref = { type: string; id: string; title?: string };

const RCA = (account: string, event: string, generate: boolean) =>
  `{ ai_get_rca(account_id: "${account}", event_id: "${event}", generate: ${generate}) { data } }`;
const RECOMMENDATION = (account: string, event: string, type: string) =>
  `{ ai_get_recommendation(account_id: "${account}", event_id: "${event}", recommendation_type: "${type}") { data } }`;
const BUDGET = (account: string) => `{ ai_budget_status(request: {account_id: "${account}"}) { data {
  account_id tenant_id period
  investigation { tenant { ...level } account { ...level } }
  user_investigation { tenant { ...level } account { ...level } } } err } }
  fragment level on AIBudgetLevelInfo { budget_limit budget_remaining current_usage limit_source rate_limit }`;
const FOLLOWUP = `mutation ($request: AiFollowupResponseInput!) {
  ai_followup_response(request: $request) { conversation_id message_id response references status answered_by } }`;

/** Where each kind of cited record lives: a reference exists when this finds it in the caller's tenant. */
const EXISTS: Record<string, string> = {
  event: 'SELECT 1 FROM events WHERE id::text = $1 AND tenant = $2::uuid',
  log: 'SELECT 1 FROM logs WHERE id::text = $1 AND tenant_id = $2::uuid',
  k8s_pod: 'SELECT 1 FROM k8s_pods WHERE cloud_resource_id::text = $1 AND tenant_id = $2::uuid',
  k8s_workload: 'SELECT 1 FROM k8s_workloads WHERE id::text = $1 AND tenant_id = $2::uuid',
  k8s_node: 'SELECT 1 FROM k8s_nodes WHERE cloud_resource_id::text = $1 AND tenant_id = $2::uuid',
  anomaly: 'SELECT 1 FROM anomaly WHERE id::text = $1 AND tenant = $2::uuid',
  recommendation: 'SELECT 1 FROM recommendation WHERE id::text = $1 AND tenant_id = $2::uuid',
  spend: 'SELECT 1 FROM spends WHERE id::text = $1 AND tenant = $2::uuid',
  event_history: 'SELECT 1 FROM event_history WHERE id::text = $1 AND tenant_id = $2::uuid',
  ai_knowledgebase: 'SELECT 1 FROM ai_knowledgebase WHERE id::text = $1 AND tenant_id = $2::uuid',
  ai_message: 'SELECT 1 FROM ai_message WHERE id::text = $1 AND tenant_id = $2::uuid',
  // Rule articles are the platform's, shared by every tenant.
  knowledge_base: 'SELECT 1 FROM knowledge_base WHERE id::text = $1 AND $2::uuid IS NOT NULL',
};

const key = (r: Ref) => `${r.type}:${r.id}`;
const keys = (refs: Ref[]) => refs.map(key).sort();
const strip = ({ source, stored_at, ...rest }: Row) => rest; // eslint-disable-line @typescript-eslint/no-unused-vars

/** Helpers bound to one server: calls as a user, and checks against its database. */
function helpers(get: () => TestServer) {
  const sql = (text: string, params: (string | null)[] = []) => get().started.db.query(text, params);
  const gql = (doc: string, headers: Record<string, string>, variables?: Record<string, unknown>) =>
    get().gql(doc, variables, headers);
  const data = async (doc: string, headers: Record<string, string>, variables?: Record<string, unknown>) => {
    const res = await gql(doc, headers, variables);
    if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
    return res.body.data;
  };
  const rca = async (event: string, generate = true, headers = admin, account = AWS): Promise<Row> =>
    (await data(RCA(account, event, generate), headers)).ai_get_rca.data;
  const followup = async (request: Row, headers = admin): Promise<Row> =>
    (await data(FOLLOWUP, headers, { request })).ai_followup_response;
  /** Every reference must name a record of the tenant (or a shared rule article). */
  const expectExisting = async (refs: Ref[], tenant: string = acme.id, allowNone = false) => {
    if (!allowNone) expect(refs.length).toBeGreaterThan(0);
    for (const r of refs) {
      expect(EXISTS).toHaveProperty(r.type);
      const found = await sql(EXISTS[r.type]!, [r.id, tenant]);
      if (found.length !== 1) throw new Error(`cited ${key(r)} is not a record of tenant ${tenant}`);
    }
  };
  return { sql, gql, data, rca, followup, expectExisting };
}

/** Globex rows put on Acme's AWS account id, beside the seeded incidents: the tenant decides, not the account. */
async function seedStrays(server: TestServer, s: SeededIncidents) {
  const [oom] = await server.started.db.query(
    `SELECT to_char(starts_at, 'YYYY-MM-DD HH24:MI:SS') AS at FROM events WHERE id = $1::uuid`,
    [s.events.out_of_memory],
  );
  const [crash] = await server.started.db.query(
    `SELECT to_char(starts_at, 'YYYY-MM-DD HH24:MI:SS') AS at FROM events WHERE id = $1::uuid`,
    [s.events.crash_loop],
  );
  const [log] = await server.started.db.query(
    `INSERT INTO logs (tenant_id, cloud_account_id, ts, severity, message, labels)
     VALUES ($1::uuid, $2::uuid, ($3::timestamp - interval '1 minute') AT TIME ZONE 'UTC', 'error', 'Globex stray: OOMKilled out of memory',
             '{"namespace": "shop", "app": "orders-api", "pod": "orders-api-7d9f8b6c4-x2k9p"}') RETURNING id::text`,
    [globex.id, AWS, String(oom!.at)],
  );
  const [event] = await server.started.db.query(
    `INSERT INTO events (tenant, cloud_account_id, title, description, severity, priority, urgency, source, status, category, aggregation_key, finding_id,
                         finding_type, cluster, subject_name, subject_namespace, subject_owner, subject_type, starts_at, created_at)
     VALUES ($1::uuid, $2::uuid, 'Globex stray: checkout CrashLoopBackOff', 'Back-off restarting failed container checkout', 'HIGH', 'HIGH', 'HIGH',
             'kubernetes_api_server', 'FIRING', 'Availability', 'issue:checkout', 'globex-stray', 'issue', $3::text, 'checkout-5c8d7f9b6-abcde', 'payments',
             'checkout', 'pod', $4::timestamp - interval '20 minutes', $4::timestamp - interval '20 minutes') RETURNING id::text`,
    [globex.id, AWS, s.cluster, String(crash!.at)],
  );
  const [kb] = await server.started.db.query(
    `INSERT INTO ai_knowledgebase (tenant_id, cloud_account_id, name, data)
     VALUES ($1::uuid, $2::uuid, 'Globex stray runbook', 'checkout CrashLoopBackOff OOMKilled out of memory: Globex secret steps') RETURNING id::text`,
    [globex.id, AWS],
  );
  return { log: String(log!.id), event: String(event!.id), kb: String(kb!.id) };
}

describe(`AI analysis with the built-in analyst on ${backendName}`, () => {
  let server: TestServer;
  let s: SeededIncidents;
  let stray: { log: string; event: string; kb: string };
  let globexEvent: { id: string; account: string };
  const { sql, gql, data, rca, followup, expectExisting } = helpers(() => server);

  beforeAll(async () => {
    // The default budgets come from the environment, not from constants the test repeats.
    server = await startTestServer({ env: { AI_BUDGET_TENANT: '123456', AI_BUDGET_ACCOUNT: '65432' } });
    s = await seedAiIncidents(server.started.db, acme.id, AWS);
    stray = await seedStrays(server, s);
    const [e] = await sql(
      `SELECT id::text AS id, cloud_account_id::text AS account FROM events WHERE tenant = $1::uuid AND cloud_account_id IS NOT NULL ORDER BY id LIMIT 1`,
      [globex.id],
    );
    globexEvent = { id: String(e!.id), account: String(e!.account) };
  });
  afterAll(() => server.close());

  describe('the built-in analyst names the cause of each seeded incident first, with its evidence', () => {
    test.each(INCIDENT_KINDS)('%s', async (kind: IncidentKind) => {
      const d = await rca(s.events[kind]);
      expect(d).toMatchObject({
        status: 'completed',
        event_id: s.events[kind],
        account_id: AWS,
        analyst: 'built-in analyst',
        answered_by: 'builtin',
        source: 'generated',
      });
      expect(d.summary).toMatch(/^Built-in analyst: /);
      expect(d).not.toHaveProperty('notice');
      const causes: Row[] = d.root_causes;
      expect(causes[0].cause).toBe(kind);
      // Ranked: scores never rise down the list, and the first is ahead of any other.
      expect(causes.map((c) => c.score)).toEqual([...causes.map((c) => c.score)].sort((a, b) => b - a));
      // The cause is well supported; nothing else comes near it (a crash loop beside an OOM is its symptom).
      expect(['high', 'medium']).toContain(causes[0].confidence);
      expect(causes.slice(1).filter((c) => c.confidence !== 'low')).toEqual([]);
      expect(d.summary).toContain(causes[0].title.toLowerCase());
      expect(causes[0].actions.length).toBeGreaterThan(0);

      const top: Row[] = causes[0].evidence;
      await expectExisting(top as Ref[]);
      await expectExisting(d.references);
      expect(top.map((e) => key(e as Ref))).toContain(`event:${s.events[kind]}`);
      // Besides the event itself, something of this incident: its logs, pod, anomaly, node or spend.
      const own = new Set([...(s.logs[kind] ?? []).map((id) => `log:${id}`), `k8s_pod:${s.pods[kind]}`]);
      const anomalies = await sql(
        `SELECT a.id::text AS id FROM anomaly a JOIN events e ON e.id = $1::uuid AND a.tenant = e.tenant AND a.account_id = e.cloud_account_id AND a.name = e.subject_owner`,
        [s.events[kind]],
      );
      for (const a of anomalies) own.add(`anomaly:${a.id}`);
      if (kind === 'node_pressure') own.add(`k8s_node:${s.nodeId}`);
      if (kind === 'cost_spike') {
        for (const r of await sql(`SELECT id::text AS id FROM spends WHERE cloud_resource_id = $1::uuid`, [
          s.resourceId,
        ]))
          own.add(`spend:${r.id}`);
        own.add(`recommendation:${s.recommendationId}`);
      }
      expect(top.filter((e) => own.has(key(e as Ref))).length).toBeGreaterThan(0);
      // A cited log line is quoted as the database has it.
      for (const e of top.filter((x) => x.type === 'log')) {
        const [l] = await sql(`SELECT message FROM logs WHERE id::text = $1`, [e.id]);
        expect(e.excerpt).toBe(l!.message);
      }
      // Nothing of the other incidents, of the noise lines, or of Globex.
      const foreign = new Set([
        ...s.logs.noise!.map((id) => `log:${id}`),
        ...INCIDENT_KINDS.filter((k) => k !== kind).flatMap((k) => [
          `event:${s.events[k]}`,
          ...(s.logs[k] ?? []).map((id) => `log:${id}`),
          `k8s_pod:${s.pods[k]}`,
        ]),
        `log:${stray.log}`,
        `event:${stray.event}`,
        `ai_knowledgebase:${stray.kb}`,
      ]);
      const cited = [...d.references, ...causes.flatMap((c) => c.evidence)].map(key);
      expect(cited.filter((k) => foreign.has(k))).toEqual([]);
      expect(JSON.stringify(d)).not.toContain('Globex');
    });
  });

  test('the evidence: the event, related events, matching logs, workload state, anomalies, recommendations and knowledge', async () => {
    const around = async (kind: IncidentKind) => {
      // Events of the same account and cluster within 6 hours, on the same workload or node (hand-written).
      const related = await sql(
        `SELECT o.id::text AS id FROM events e JOIN events o ON o.tenant = e.tenant AND o.cloud_account_id = e.cloud_account_id AND o.cluster = e.cluster AND o.id <> e.id
          WHERE e.id = $1::uuid AND e.tenant = $2::uuid AND abs(extract(epoch FROM o.starts_at - e.starts_at)) <= 6 * 3600
            AND ((o.subject_namespace = e.subject_namespace AND (o.subject_owner = e.subject_owner OR o.subject_name IN (e.subject_name, e.subject_owner)))
              OR (e.subject_node IS NOT NULL AND o.subject_node = e.subject_node))`,
        [s.events[kind], acme.id],
      );
      return related.map((r) => `event:${r.id}`);
    };
    const crash = await rca(s.events.crash_loop, false);
    const crashRelated = await around('crash_loop');
    expect(crashRelated.length).toBe(1); // the rollout half an hour before
    expect(crash.references.map(key)).toEqual(
      expect.arrayContaining([...crashRelated, `ai_knowledgebase:${s.knowledgeBaseDocId}`]),
    );
    const node = await rca(s.events.node_pressure, false);
    const nodeRelated = await around('node_pressure');
    expect(nodeRelated.length).toBe(1); // the eviction on that node
    expect(node.references.map(key)).toEqual(expect.arrayContaining([...nodeRelated, `k8s_node:${s.nodeId}`]));
    expect(node.root_causes[0].evidence.map(key)).toEqual(expect.arrayContaining(nodeRelated));

    const oom = await rca(s.events.out_of_memory, false);
    const [workload] = await sql(
      `SELECT id::text AS id FROM k8s_workloads WHERE tenant_id = $1::uuid AND namespace = 'shop' AND name = 'orders-api'`,
      [acme.id],
    );
    const anomalies = await sql(
      `SELECT id::text AS id FROM anomaly WHERE tenant = $1::uuid AND account_id = $2::uuid AND name = 'orders-api' AND namespace = 'shop'`,
      [acme.id, AWS],
    );
    const [article] = await sql(`SELECT id::text AS id FROM knowledge_base WHERE rule_name = 'container_oom_killed'`);
    expect(anomalies.length).toBe(1);
    expect(oom.references.map(key)).toEqual(
      expect.arrayContaining([
        `k8s_workload:${workload!.id}`,
        `k8s_pod:${s.pods.out_of_memory}`,
        `anomaly:${anomalies[0]!.id}`,
        `knowledge_base:${article!.id}`,
      ]),
    );
    // The matching logs: the workload's lines from 2 hours before to 1 hour after, no other app's, no earlier day's.
    for (const kind of INCIDENT_KINDS.filter((k) => s.logs[k])) {
      const d = await rca(s.events[kind], false);
      expect(keys(d.references.filter((r: Ref) => r.type === 'log'))).toEqual(
        s.logs[kind]!.map((id) => `log:${id}`).sort(),
      );
    }
    const cost = await rca(s.events.cost_spike, false);
    expect(cost.references.map(key)).toContain(`recommendation:${s.recommendationId}`);
    expect(cost.references.filter((r: Ref) => r.type === 'spend').length).toBe(1);
  });

  test('ai_get_rca: nothing stored until generate is true; then the stored analysis, as the database has it', async () => {
    const [fresh] = await sql(
      `INSERT INTO events (tenant, cloud_account_id, title, description, severity, priority, urgency, source, status, aggregation_key, finding_id, finding_type,
                           cluster, subject_name, subject_namespace, subject_type, starts_at)
       VALUES ($1::uuid, $2::uuid, 'Container OOMKilled in cart', 'cart was OOMKilled (exit code 137)', 'HIGH', 'HIGH', 'HIGH', 'kubernetes_api_server', 'FIRING',
               'issue:cart', 'cart-1', 'issue', 'ai-test-eks', 'cart', 'shop', 'deployment', timestamp '2026-03-20 08:00:00') RETURNING id::text`,
      [acme.id, AWS],
    );
    const id = String(fresh!.id);
    const stored = () =>
      sql(
        `SELECT kind, answered_by, cloud_account_id::text AS account, data FROM ai_event_analysis WHERE tenant_id = $1::uuid AND event_id = $2::uuid ORDER BY kind`,
        [acme.id, id],
      );
    expect(await rca(id, false)).toEqual({
      status: 'not-found',
      event_id: id,
      account_id: AWS,
      message: expect.stringContaining('generate: true'),
    });
    expect(await stored()).toEqual([]);

    const made = await rca(id, true);
    expect(made.root_causes[0].cause).toBe('out_of_memory');
    const rows = await stored();
    expect(rows.map((r) => [r.kind, r.answered_by, r.account])).toEqual([['rca', 'builtin', AWS]]);
    expect(rows[0]!.data).toEqual(strip(made));
    const again = await rca(id, false);
    expect(again.source).toBe('stored');
    expect(strip(again)).toEqual(rows[0]!.data);
    expect(again.stored_at).toBe(made.stored_at);
    // Generating again replaces the stored analysis: still one row of the kind.
    const remade = await rca(id, true);
    expect(remade.generated_at >= made.generated_at).toBe(true);
    expect((await stored()).length).toBe(1);
    expect(((await stored())[0]!.data as Row).generated_at).toBe(remade.generated_at);
  });

  test('a read-only role reads stored analyses and makes none: generating is permission-error, nothing stored or spent', async () => {
    const [fresh] = await sql(
      `INSERT INTO events (tenant, cloud_account_id, title, description, severity, priority, urgency, source, status, aggregation_key, finding_id, finding_type,
                           cluster, subject_name, subject_namespace, subject_type, starts_at)
       VALUES ($1::uuid, $2::uuid, 'Container OOMKilled in till', 'till was OOMKilled (exit code 137)', 'HIGH', 'HIGH', 'HIGH', 'kubernetes_api_server', 'FIRING',
               'issue:till', 'till-1', 'issue', 'ai-test-eks', 'till', 'shop', 'deployment', timestamp '2026-03-21 08:00:00') RETURNING id::text`,
      [acme.id, AWS],
    );
    const id = String(fresh!.id);
    const written = async () =>
      (
        await sql(
          `SELECT (SELECT count(*) FROM ai_event_analysis WHERE event_id::text = $1::text) + (SELECT count(*) FROM ai_usage WHERE subject_id = $1::text) AS n`,
          [id],
        )
      )[0]!.n;
    const refusal = (res: GqlResult) => res.body.errors?.[0];
    for (const doc of [RCA(AWS, id, true), RECOMMENDATION(AWS, id, 'logs'), RECOMMENDATION(AWS, id, 'fix')]) {
      const e = refusal(await gql(doc, readonly));
      expect(e?.extensions.code).toBe('permission-error');
      expect(e?.message).toMatch(
        /"tenant_admin_readonly" is read-only: making an? (analysis|recommendation) .* is for tenant_admin$/,
      );
    }
    expect(Number(await written())).toBe(0);
    expect((await rca(id, false, readonly)).status).toBe('not-found');

    // Made by tenant_admin, they are read by the read-only role as stored.
    const made = await rca(id, true, admin);
    const rec = (await data(RECOMMENDATION(AWS, id, 'logs'), admin)).ai_get_recommendation.data;
    const before = Number(await written());
    const read = await rca(id, false, readonly);
    expect([read.source, read.stored_at]).toEqual(['stored', made.stored_at]);
    const readRec = (await data(RECOMMENDATION(AWS, id, 'logs'), readonly)).ai_get_recommendation.data;
    expect([readRec.source, readRec.stored_at]).toEqual(['stored', rec.stored_at]);
    expect(refusal(await gql(RCA(AWS, id, true), readonly))?.extensions.code).toBe('permission-error');
    expect(Number(await written())).toBe(before);
  });

  test("ai_get_rca and ai_get_recommendation: another tenant's event gives an error and nothing of it", async () => {
    await rca(s.events.out_of_memory, true);
    const title = 'Container OOMKilled in orders-api';
    const attempts: [string, Record<string, string>][] = [
      [RCA(globex.cloudAccounts.aws, s.events.out_of_memory, false), globexAdmin],
      [RCA(AWS, s.events.out_of_memory, false), globexAdmin],
      [RCA(AWS, s.events.out_of_memory, true), globexAdmin],
      [RECOMMENDATION(globex.cloudAccounts.aws, s.events.out_of_memory, 'logs'), globexAdmin],
      [RECOMMENDATION(AWS, s.events.out_of_memory, 'fix'), globexAdmin],
      // Acme asking for Globex's event, with Globex's account or its own.
      [RCA(globexEvent.account, globexEvent.id, true), admin],
      [RCA(AWS, globexEvent.id, true), readonly],
      [RECOMMENDATION(AWS, globexEvent.id, 'logs'), readonly],
      // The right tenant, the wrong account.
      [RCA(GCP, s.events.out_of_memory, false), admin],
    ];
    for (const [doc, headers] of attempts) {
      const res = await gql(doc, headers);
      expect(res.body.data?.ai_get_rca ?? res.body.data?.ai_get_recommendation ?? null).toBeNull();
      expect(res.body.errors[0]).toMatchObject({
        message: expect.stringMatching(/not found/),
        extensions: { code: 'validation-failed', path: '$.event_id' },
      });
      expect(res.text).not.toContain(title);
    }
    const [globexTitle] = await sql(`SELECT title FROM events WHERE id = $1::uuid`, [globexEvent.id]);
    expect((await gql(RCA(AWS, globexEvent.id, true), admin)).text).not.toContain(globexTitle!.title);
    // Nothing was stored for the other tenant's event, nor under Globex for Acme's.
    expect(
      await sql(`SELECT 1 FROM ai_event_analysis WHERE event_id = $1::uuid OR tenant_id = $2::uuid`, [
        globexEvent.id,
        globex.id,
      ]),
    ).toEqual([]);
    const bad = await gql(RCA(AWS, 'not-a-uuid', false), readonly);
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'validation-failed', path: '$.event_id' });
  });

  test('ai_get_recommendation "logs": the event\'s log lines grouped, each group with what it suggests', async () => {
    const d = (await data(RECOMMENDATION(AWS, s.events.out_of_memory, 'logs'), admin)).ai_get_recommendation.data;
    expect(d).toMatchObject({
      status: 'completed',
      recommendation_type: 'logs',
      analyst: 'built-in analyst',
      answered_by: 'builtin',
    });
    // The lines of orders-api from 2 hours before to 1 hour after the event (hand-written), and only them.
    const lines = await sql(
      `SELECT l.id::text AS id, l.message, l.severity FROM logs l JOIN events e ON e.id = $2::uuid
        WHERE l.tenant_id = $1::uuid AND l.cloud_account_id = e.cloud_account_id AND l.labels->>'namespace' = e.subject_namespace AND l.labels->>'app' = e.subject_owner
          AND l.ts BETWEEN ((e.starts_at - interval '2 hours') AT TIME ZONE 'UTC') AND ((e.starts_at + interval '1 hour') AT TIME ZONE 'UTC')`,
      [acme.id, s.events.out_of_memory],
    );
    expect(lines.map((l) => l.id).sort()).toEqual([...s.logs.out_of_memory!].sort());
    const patterns: Row[] = d.log_patterns;
    expect(patterns.flatMap((p) => p.log_ids).sort()).toEqual(lines.map((l) => l.id).sort());
    expect(patterns.reduce((n, p) => n + p.count, 0)).toBe(lines.length);
    for (const p of patterns) {
      for (const id of p.log_ids) expect(lines.find((l) => l.id === id)!.severity).toBe(p.severity);
    }
    // Errors before warnings before info; the OOM lines point at the OOM and say what to do.
    const rank: Record<string, number> = { error: 3, warn: 2, info: 1 };
    expect(patterns.map((p) => rank[p.severity])).toEqual(
      [...patterns.map((p) => rank[p.severity])].sort((a, b) => b! - a!),
    );
    const oomLine = lines.find((l) => /Memory cgroup out of memory/.test(String(l.message)))!;
    const group = patterns.find((p) => p.log_ids.includes(oomLine.id))!;
    expect(group.cause).toBe('out_of_memory');
    expect(group.suggestion).toMatch(/memory limit of shop\/orders-api/);
    const suggestion = (d.suggestions as Row[]).find((x) => x.title === group.suggestion)!;
    expect(suggestion.evidence.map((e: Ref) => e.id)).toContain(oomLine.id);
    await expectExisting(d.suggestions.flatMap((x: Row) => x.evidence));
    const [row] = await sql(
      `SELECT data FROM ai_event_analysis WHERE tenant_id = $1::uuid AND event_id = $2::uuid AND kind = 'recommendation:logs'`,
      [acme.id, s.events.out_of_memory],
    );
    expect(row!.data).toEqual(strip(d));
  });

  test('ai_get_recommendation "fix": the steps for the leading cause, with evidence; other types refused', async () => {
    const d = (await data(RECOMMENDATION(AWS, s.events.configuration_error, 'fix'), admin)).ai_get_recommendation.data;
    expect(d.suggestions[0].cause).toBe('configuration_error');
    expect(d.suggestions[0].title).toMatch(/namespace messaging/);
    await expectExisting(d.suggestions.flatMap((x: Row) => x.evidence));
    expect(d.suggestions[0].evidence.map(key)).toContain(`event:${s.events.configuration_error}`);
    const bad = await gql(RECOMMENDATION(AWS, s.events.configuration_error, 'poem'), admin);
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'validation-failed', path: '$.recommendation_type' });
  });

  test('ai_budget_status: usage this month, per module, tenant and account, against budgets from the database or the defaults', async () => {
    const status = async (account = AWS, headers = readonly) => (await data(BUDGET(account), headers)).ai_budget_status;
    const fresh = await status();
    const [period] = await sql(`SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM') AS p`);
    const unused = {
      budget_limit: 0,
      budget_remaining: 0,
      current_usage: 0,
      limit_source: 'default',
      rate_limit: false,
    };
    const defaults = {
      tenant: { ...unused, budget_limit: 123456, budget_remaining: 123456 },
      account: { ...unused, budget_limit: 65432, budget_remaining: 65432 },
    };
    expect(fresh).toEqual({
      data: {
        account_id: AWS,
        tenant_id: acme.id,
        period: period!.p,
        investigation: defaults,
        user_investigation: defaults,
      },
      err: null,
    });

    await server.started.db.exec(`
      INSERT INTO ai_usage (tenant_id, cloud_account_id, module, operation, model, prompt_tokens, completion_tokens, created_at) VALUES
        ('${acme.id}', '${AWS}', 'investigation', 'ai_get_rca', 'm', 1000, 200, now()),
        ('${acme.id}', '${AWS}', 'investigation', 'ai_get_rca', 'm', 5000, 0, date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '1 minute'),
        ('${acme.id}', '${GCP}', 'investigation', 'ai_get_rca', 'm', 300, 50, now()),
        ('${acme.id}', '${AWS}', 'user_investigation', 'ai_followup_response', 'm', 40, 2, now()),
        ('${globex.id}', '${globex.cloudAccounts.aws}', 'investigation', 'ai_get_rca', 'm', 9999, 1, now()),
        ('${globex.id}', '${AWS}', 'user_investigation', 'ai_followup_response', 'm', 7777, 1, now());
      INSERT INTO ai_budget (tenant_id, cloud_account_id, module, tenant_tokens, account_tokens) VALUES
        ('${acme.id}', NULL, NULL, 100000, 20000),
        ('${acme.id}', '${AWS}', 'user_investigation', NULL, 30),
        ('${globex.id}', NULL, NULL, 1, 1);`);
    try {
      // Usage by hand: this month (UTC), the tenant's rows only.
      const usage = async (module: string, account: string | null) => {
        const [u] = await sql(
          `SELECT coalesce(sum(prompt_tokens + completion_tokens), 0)::int AS n FROM ai_usage
            WHERE tenant_id = $1::uuid AND module = $2::text AND ($3::uuid IS NULL OR cloud_account_id = $3::uuid)
              AND to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM') = to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM')`,
          [acme.id, module, account],
        );
        return Number(u!.n);
      };
      const level = (current: number, limit: number, source: string) => ({
        budget_limit: limit,
        current_usage: current,
        budget_remaining: Math.max(0, limit - current),
        limit_source: source,
        rate_limit: current >= limit,
      });
      const expected = {
        investigation: {
          tenant: level(await usage('investigation', null), 100000, 'tenant'),
          account: level(await usage('investigation', AWS), 20000, 'tenant'),
        },
        user_investigation: {
          tenant: level(await usage('user_investigation', null), 100000, 'tenant'),
          account: level(await usage('user_investigation', AWS), 30, 'account'),
        },
      };
      expect([
        expected.investigation.tenant.current_usage,
        expected.investigation.account.current_usage,
        expected.user_investigation.account.current_usage,
      ]).toEqual([1550, 1200, 42]);
      expect(expected.user_investigation.account.rate_limit).toBe(true);
      for (const headers of [readonly, admin]) expect((await status(AWS, headers)).data).toMatchObject(expected);
      // The GCP account: its own usage, the tenant row's account cap.
      expect((await status(GCP)).data.investigation.account).toEqual(
        level(await usage('investigation', GCP), 20000, 'tenant'),
      );
      // Another tenant's account, or one that does not exist: an error, no figures.
      for (const account of [globex.cloudAccounts.aws, '11111111-0002-4000-8000-0000000000ff']) {
        expect(await status(account)).toEqual({
          data: null,
          err: { code: 'not-found', message: `account ${account} not found` },
        });
      }
      const globexView = (await status(globex.cloudAccounts.aws, globexAdmin)).data;
      expect(globexView.investigation.tenant).toMatchObject({
        current_usage: 10000,
        budget_limit: 1,
        rate_limit: true,
      });
      expect(globexView.user_investigation.tenant.current_usage).toBe(7778);
    } finally {
      await server.started.db.exec(`DELETE FROM ai_usage; DELETE FROM ai_budget;`);
    }
  });

  test("ai_followup_response: a new conversation, stored; the answer cites what full-text search finds in the tenant's data", async () => {
    const question = 'Why is checkout in CrashLoopBackOff?';
    const first = await followup({ account_id: AWS, message: question, conversation_id: null });
    expect(first).toMatchObject({ status: 'completed', answered_by: 'builtin' });
    expect(first.response).toMatch(/^Built-in analyst answering\./);
    const refs: Ref[] = first.references;
    await expectExisting(refs);

    // Events and knowledge bases of the account matching the question's words (hand-written full-text search).
    const words = `'checkout or crashloopbackoff'`;
    const events = await sql(
      `SELECT id::text AS id FROM events WHERE tenant = $1::uuid AND cloud_account_id = $2::uuid
          AND to_tsvector('english', title || ' ' || coalesce(description, '') || ' ' || coalesce(failure, '')) @@ websearch_to_tsquery('english', ${words})`,
      [acme.id, AWS],
    );
    const docs = await sql(
      `SELECT id::text AS id FROM ai_knowledgebase WHERE tenant_id = $1::uuid AND cloud_account_id = $2::uuid AND status = 'active'
          AND to_tsvector('english', name || ' ' || coalesce(description, '') || ' ' || data) @@ websearch_to_tsquery('english', ${words})`,
      [acme.id, AWS],
    );
    expect(events.map((e) => e.id)).toContain(s.events.crash_loop);
    expect(events.length).toBeLessThanOrEqual(5);
    expect(docs.map((d) => d.id)).toContain(s.knowledgeBaseDocId);
    expect(refs.map(key)).toEqual(
      expect.arrayContaining([...events.map((e) => `event:${e.id}`), ...docs.map((d) => `ai_knowledgebase:${d.id}`)]),
    );
    // A "why" question gets the cause of the best match, as ai_get_rca finds it.
    expect(first.response).toContain('crash loop');
    expect(first.response).toContain(`[event:${s.events.crash_loop}]`);
    for (const k of [`event:${stray.event}`, `ai_knowledgebase:${stray.kb}`]) expect(refs.map(key)).not.toContain(k);
    expect(first.response).not.toContain('Globex');

    // Stored: the conversation of the user, both messages, and the references of the answer.
    const [conversation] = await sql(
      `SELECT tenant_id::text AS tenant, cloud_account_id::text AS account, user_id::text AS user_id, title FROM ai_conversation WHERE id = $1::uuid`,
      [first.conversation_id],
    );
    expect(conversation).toEqual({ tenant: acme.id, account: AWS, user_id: acme.users.admin.id, title: question });
    const messages = () =>
      sql(
        `SELECT id::text AS id, tenant_id::text AS tenant, role, content, refs, answered_by FROM ai_message WHERE conversation_id = $1::uuid ORDER BY created_at, role DESC`,
        [first.conversation_id],
      );
    expect((await messages()).map((m) => [m.tenant, m.role, m.content])).toEqual([
      [acme.id, 'user', question],
      [acme.id, 'assistant', first.response],
    ]);
    const answer = (await messages())[1]!;
    expect([answer.id, answer.refs, answer.answered_by]).toEqual([first.message_id, refs, 'builtin']);
    const stored = await sql(
      `SELECT type, reference_id AS id FROM ai_reference WHERE message_id = $1::uuid AND tenant_id = $2::uuid`,
      [first.message_id, acme.id],
    );
    expect(keys(stored as Ref[])).toEqual(keys(refs));

    // The same conversation goes on: the top recommendations by savings, as SQL ranks them.
    const second = await followup({
      account_id: AWS,
      message: 'Which recommendations would save us the most money?',
      conversation_id: first.conversation_id,
    });
    expect(second.conversation_id).toBe(first.conversation_id);
    const top = await sql(
      `SELECT id::text AS id FROM recommendation WHERE tenant_id = $1::uuid AND cloud_account_id = $2::uuid AND NOT is_dismissed
          AND coalesce(status, 'Open') NOT IN ('Closed', 'Dismissed', 'Archive') AND estimated_savings > 0 ORDER BY estimated_savings DESC, id LIMIT 5`,
      [acme.id, AWS],
    );
    expect(top.length).toBe(5);
    expect(top.map((r) => r.id)).toContain(s.recommendationId);
    expect(
      second.references
        .filter((r: Ref) => r.type === 'recommendation')
        .slice(0, 5)
        .map((r: Ref) => r.id),
    ).toEqual(top.map((r) => r.id));
    const order = top.map((r) => second.response.indexOf(`[recommendation:${r.id}]`));
    expect(order.every((i) => i > 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect((await messages()).length).toBe(4);

    // Spend by service: the account's latest 30 days of data, the largest first.
    const third = await followup({
      account_id: AWS,
      message: 'How much did we spend by service?',
      conversation_id: first.conversation_id,
    });
    const services = await sql(
      `WITH last AS (SELECT max(date) AS d FROM spends WHERE tenant = $1::uuid AND cloud_account = $2::uuid)
       SELECT coalesce(r.service_name, 'Other') AS service, sum(s.amount)::float8 AS amount FROM spends s CROSS JOIN last
         LEFT JOIN cloud_resourses r ON r.id = s.cloud_resource_id AND r.tenant = s.tenant
        WHERE s.tenant = $1::uuid AND s.cloud_account = $2::uuid AND s.date > last.d - interval '30 days'
        GROUP BY 1 ORDER BY 2 DESC LIMIT 1`,
      [acme.id, AWS],
    );
    const [account] = await sql(`SELECT account_name FROM cloud_accounts WHERE id = $1::uuid`, [AWS]);
    expect(third.response).toContain(`Spend of ${account!.account_name}`);
    expect(third.response).toContain(`1. ${services[0]!.service}: `);
    expect(third.references.some((r: Ref) => r.type === 'spend')).toBe(true);
    await expectExisting(third.references);
  });

  test("ai_followup_response: another tenant's conversation is not found and not added to; bad input and read-only callers refused", async () => {
    const mine = await followup({ account_id: AWS, message: 'What happened to orders-api?', conversation_id: null });
    const count = async () =>
      Number(
        (
          await sql(`SELECT count(*)::int AS n FROM ai_message WHERE conversation_id = $1::uuid`, [
            mine.conversation_id,
          ])
        )[0]!.n,
      );
    expect(await count()).toBe(2);
    for (const account of [globex.cloudAccounts.aws, AWS]) {
      const res = await gql(FOLLOWUP, globexAdmin, {
        request: { account_id: account, message: 'What did we talk about?', conversation_id: mine.conversation_id },
      });
      expect(res.body.data?.ai_followup_response ?? null).toBeNull();
      expect(res.body.errors[0].extensions.code).toBe('validation-failed');
      expect(res.body.errors[0].message).toMatch(/not found/);
      expect(res.text).not.toContain('orders-api');
    }
    expect(await count()).toBe(2);
    // Acme's conversation under Acme's other account is not that account's.
    const other = await gql(FOLLOWUP, admin, {
      request: { account_id: GCP, message: 'and now?', conversation_id: mine.conversation_id },
    });
    expect(other.body.errors[0]).toMatchObject({
      message: `conversation ${mine.conversation_id} not found`,
      extensions: { path: '$.request.conversation_id' },
    });
    // A Globex conversation started on Globex's account never cites Acme's records.
    const theirs = await followup(
      { account_id: globex.cloudAccounts.aws, message: 'Why is checkout in CrashLoopBackOff?', conversation_id: null },
      globexAdmin,
    );
    await expectExisting(theirs.references, globex.id, true);
    for (const bad of [
      { message: '   ' },
      { message: 'x'.repeat(4001) },
      { message: 'hi', conversation_id: 'c-1' },
      { message: 'hi', account_id: 'a-1' },
    ]) {
      const res = await gql(FOLLOWUP, admin, { request: { account_id: AWS, conversation_id: null, ...bad } });
      expect(res.body.errors[0].extensions.code).toBe('validation-failed');
    }
    const ro = await gql(FOLLOWUP, readonly, { request: { account_id: AWS, message: 'hi', conversation_id: null } });
    expect(ro.body.errors).toBeDefined();
    expect(await count()).toBe(2);
  });
});

/** A stand-in for an OpenAI-compatible chat-completions endpoint, on loopback, answering as told. */
interface StandIn {
  url: string;
  mode: 'answer' | 'echo-key' | 'fail' | 'slow';
  requests: { method: string; path: string; authorization: string | undefined; body: Row }[];
  answers: { content: string; model: string; prompt_tokens: number; completion_tokens: number }[];
  close(): Promise<void>;
}

async function startStandIn(): Promise<StandIn> {
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const body = JSON.parse(raw) as Row;
      const auth = req.headers.authorization;
      stand.requests.push({ method: req.method ?? '', path: req.url ?? '', authorization: auth, body });
      if (stand.mode === 'fail') {
        // Providers' error bodies may echo the request; none of it may reach an answer.
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `internal error while serving ${auth}` } }));
        return;
      }
      const n = stand.answers.length + 1;
      const answer = {
        content:
          stand.mode === 'echo-key'
            ? `Answer ${n}. For the record, you called me with ${auth}.`
            : `Stand-in answer ${n}: the cause is in the evidence [${firstRef(body)}].`,
        model: 'stand-in-llm-1',
        // Tokens derived from the request, so that the recorded usage cannot be a constant.
        prompt_tokens: Math.ceil(raw.length / 4),
        completion_tokens: 10 + n,
      };
      const reply = () => {
        stand.answers.push(answer);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: `chatcmpl-${n}`,
            object: 'chat.completion',
            model: answer.model,
            choices: [{ index: 0, message: { role: 'assistant', content: answer.content }, finish_reason: 'stop' }],
            usage: {
              prompt_tokens: answer.prompt_tokens,
              completion_tokens: answer.completion_tokens,
              total_tokens: answer.prompt_tokens + answer.completion_tokens,
            },
          }),
        );
      };
      if (stand.mode === 'slow') {
        const t = setTimeout(() => {
          timers.delete(t);
          reply();
        }, 30_000);
        timers.add(t);
        // The client gave up (its timeout): nothing to answer.
        res.on('close', () => {
          clearTimeout(t);
          timers.delete(t);
        });
      } else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const stand: StandIn = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    mode: 'answer',
    requests: [],
    answers: [],
    close: async () => {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return stand;
}

/** The first evidence reference the request carries, as `type:id`. */
function firstRef(body: Row): string {
  const m = /"ref":"([a-z_0-9]+:[^"]+)"/.exec(String(body.messages?.[body.messages.length - 1]?.content ?? ''));
  return m ? m[1]! : 'none';
}

/** The engine with a logger that keeps every entry, behind HTTP on loopback, like startTestServer. */
async function startLoggedServer(env: Record<string, string>, logs: string[]): Promise<TestServer> {
  const database = await createTestDatabase({ seeded: true });
  const config = loadConfig({ ADMIN_SECRET, SEED_DEMO_DATA: 'true', ...database.env, ...env });
  config.dataDirSnapshot = database.snapshot;
  const started = await startEngine(config, (entry) => logs.push(JSON.stringify(entry)));
  const http = serve({ fetch: started.app.fetch, createServer: started.createServer, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => (http.listening ? resolve() : http.once('listening', () => resolve())));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const post = poster(url);
  const stop = async () => {
    await new Promise<void>((resolve) => http.close(() => resolve()));
    await started.close();
  };
  return {
    url,
    started,
    post,
    stop,
    gql: (query, variables, headers = {}) =>
      post('/api/graphql', JSON.stringify({ query, variables }), { 'x-hasura-admin-secret': ADMIN_SECRET, ...headers }),
    close: async () => {
      await stop();
      await database.drop();
    },
  };
}

describe(`AI analysis with a chat-completions model on ${backendName}`, () => {
  const API_KEY = `sk-test-${randomBytes(18).toString('hex')}`;
  const TIMEOUT_MS = 2500;
  const logs: string[] = [];
  const printed: string[] = [];
  const responses: GqlResult[] = [];
  let stand: StandIn;
  let server: TestServer;
  let s: SeededIncidents;
  const h = helpers(() => server);
  const { sql, expectExisting } = h;
  /** Every answer goes through here, so that the key can be looked for in all of them. */
  const gql = async (doc: string, headers: Record<string, string>, variables?: Record<string, unknown>) => {
    const res = await h.gql(doc, headers, variables);
    responses.push(res);
    if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
    return res.body.data;
  };
  const rca = async (event: string): Promise<Row> => (await gql(RCA(AWS, event, true), admin)).ai_get_rca.data;
  const followup = async (request: Row): Promise<Row> => (await gql(FOLLOWUP, admin, { request })).ai_followup_response;
  const budget = async () => (await gql(BUDGET(AWS), readonly)).ai_budget_status.data;
  const usageRows = () =>
    sql(
      `SELECT cloud_account_id::text AS account, module, operation, model, prompt_tokens, completion_tokens, total_tokens, subject_id FROM ai_usage
          WHERE tenant_id = $1::uuid ORDER BY created_at, id`,
      [acme.id],
    );
  const spies: jest.SpyInstance[] = [];

  beforeAll(async () => {
    // Whatever reaches the process's output is kept too, so that a stray console.log of the key is caught.
    for (const stream of [process.stdout, process.stderr]) {
      const write = stream.write.bind(stream);
      spies.push(
        jest.spyOn(stream, 'write').mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
          printed.push(String(chunk));
          return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
        }) as typeof stream.write),
      );
    }
    for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      spies.push(
        jest
          .spyOn(console, method)
          .mockImplementation((...args: unknown[]) => void printed.push(args.map(String).join(' '))),
      );
    }
    stand = await startStandIn();
    server = await startLoggedServer(
      {
        AI_BASE_URL: `${stand.url}/v1`,
        AI_API_KEY: API_KEY,
        AI_MODEL: 'acme-test-model',
        AI_TIMEOUT_MS: String(TIMEOUT_MS),
        DEV_MODE: 'true',
      },
      logs,
    );
    s = await seedAiIncidents(server.started.db, acme.id, AWS);
  });
  beforeEach(() => {
    stand.mode = 'answer';
  });
  afterAll(async () => {
    await server?.close();
    await stand?.close();
    for (const spy of spies) spy.mockRestore();
  });

  test('ai_get_rca: the evidence reaches the model with the key as Bearer; its answer comes back with the references; usage is recorded', async () => {
    const before = stand.requests.length;
    const d = await rca(s.events.out_of_memory);
    expect(stand.requests.length).toBe(before + 1);
    const req = stand.requests[before]!;
    expect([req.method, req.path, req.authorization]).toEqual(['POST', '/v1/chat/completions', `Bearer ${API_KEY}`]);
    expect(req.body.model).toBe('acme-test-model');
    expect(req.body.messages.map((m: Row) => m.role)).toEqual(['system', 'user']);
    const prompt: string = req.body.messages[1].content;
    // The event, every log line of the incident (id and text), the pod, the anomaly and the article.
    const lines = await sql(`SELECT id::text AS id, message FROM logs WHERE id::text = ANY($1::text[])`, [
      `{${s.logs.out_of_memory!.join(',')}}`,
    ]);
    expect(lines.length).toBe(5);
    for (const l of lines) {
      expect(prompt).toContain(`log:${l.id}`);
      expect(prompt).toContain(JSON.stringify(l.message).slice(1, -1));
    }
    expect(prompt).toContain(s.events.out_of_memory);
    expect(prompt).toContain('Container OOMKilled in orders-api');
    expect(prompt).toContain(`k8s_pod:${s.pods.out_of_memory}`);
    for (const n of s.logs.noise!) expect(prompt).not.toContain(`log:${n}"`);

    const sent = stand.answers[stand.answers.length - 1]!;
    expect(d).toMatchObject({
      status: 'completed',
      analyst: 'model',
      model: sent.model,
      answered_by: `model:${sent.model}`,
      summary: sent.content,
    });
    expect(d.usage).toEqual({ prompt_tokens: sent.prompt_tokens, completion_tokens: sent.completion_tokens });
    expect(d).not.toHaveProperty('notice');
    // The references are the evidence the model was given: each is in the prompt and exists.
    await expectExisting(d.references);
    for (const r of d.references) expect(prompt).toContain(`${r.type}:${r.id}`);
    expect(d.references.map(key)).toEqual(
      expect.arrayContaining([`event:${s.events.out_of_memory}`, ...s.logs.out_of_memory!.map((id) => `log:${id}`)]),
    );
    // The built-in ranking stays, named as such.
    expect(d.root_causes[0].cause).toBe('out_of_memory');
    expect(d.builtin_summary).toMatch(/^Built-in analyst: /);
    const [stored] = await sql(`SELECT answered_by FROM ai_event_analysis WHERE event_id = $1::uuid AND kind = 'rca'`, [
      s.events.out_of_memory,
    ]);
    expect(stored!.answered_by).toBe(`model:${sent.model}`);

    const rows = await usageRows();
    expect(rows).toEqual([
      {
        account: AWS,
        module: 'investigation',
        operation: 'ai_get_rca',
        model: sent.model,
        prompt_tokens: sent.prompt_tokens,
        completion_tokens: sent.completion_tokens,
        total_tokens: sent.prompt_tokens + sent.completion_tokens,
        subject_id: s.events.out_of_memory,
      },
    ]);
    const b = await budget();
    const limit = server.started.actionsConfig.ai.budgetAccountTokens;
    const total = Number(rows[0]!.total_tokens);
    expect(b.investigation.account).toEqual({
      current_usage: total,
      budget_limit: limit,
      budget_remaining: limit - total,
      limit_source: 'default',
      rate_limit: false,
    });
    expect(b.investigation.tenant.current_usage).toBe(rows[0]!.total_tokens);
    expect(b.user_investigation.tenant.current_usage).toBe(0);
  });

  test('ai_get_recommendation and ai_followup_response go to the model too; usage per module adds up in ai_budget_status', async () => {
    const rec = (await gql(RECOMMENDATION(AWS, s.events.cpu_throttling, 'logs'), admin)).ai_get_recommendation.data;
    expect(rec.answered_by).toBe(`model:${stand.answers[stand.answers.length - 1]!.model}`);
    expect(stand.requests[stand.requests.length - 1]!.body.messages[1].content).toContain(
      'CPUThrottlingHigh on search-indexer',
    );

    const question = 'Why is checkout in CrashLoopBackOff?';
    const first = await followup({ account_id: AWS, message: question, conversation_id: null });
    const sent = stand.answers[stand.answers.length - 1]!;
    expect(first).toMatchObject({ response: sent.content, answered_by: `model:${sent.model}`, status: 'completed' });
    const asked = stand.requests[stand.requests.length - 1]!.body.messages as Row[];
    expect(asked[asked.length - 1]!.content).toContain(question);
    // What retrieval found goes with the question: the incident's event and the runbook.
    expect(asked[asked.length - 1]!.content).toContain(`event:${s.events.crash_loop}`);
    expect(asked[asked.length - 1]!.content).toContain(`ai_knowledgebase:${s.knowledgeBaseDocId}`);
    await expectExisting(first.references);
    expect(first.references.map(key)).toContain(`event:${s.events.crash_loop}`);

    const second = await followup({
      account_id: AWS,
      message: 'And how do I roll it back?',
      conversation_id: first.conversation_id,
    });
    const history = stand.requests[stand.requests.length - 1]!.body.messages as Row[];
    // The conversation so far goes along: the first question and the model's answer to it.
    expect(history.slice(1, 3)).toEqual([
      { role: 'user', content: question },
      { role: 'assistant', content: first.response },
    ]);
    expect(second.conversation_id).toBe(first.conversation_id);

    const rows = await usageRows();
    expect(rows.map((r) => [r.module, r.operation])).toEqual([
      ['investigation', 'ai_get_rca'],
      ['investigation', 'ai_get_recommendation'],
      ['user_investigation', 'ai_followup_response'],
      ['user_investigation', 'ai_followup_response'],
    ]);
    expect(rows.slice(2).map((r) => r.subject_id)).toEqual([first.conversation_id, first.conversation_id]);
    // Every recorded row is what the stand-in reported, in order.
    expect(rows.map((r) => [r.prompt_tokens, r.completion_tokens])).toEqual(
      stand.answers.slice(-4).map((a) => [a.prompt_tokens, a.completion_tokens]),
    );
    const sum = (module: string) =>
      rows.filter((r) => r.module === module).reduce((n, r) => n + Number(r.total_tokens), 0);
    const b = await budget();
    expect([b.investigation.tenant.current_usage, b.investigation.account.current_usage]).toEqual([
      sum('investigation'),
      sum('investigation'),
    ]);
    expect([b.user_investigation.tenant.current_usage, b.user_investigation.account.current_usage]).toEqual([
      sum('user_investigation'),
      sum('user_investigation'),
    ]);
    expect(sum('user_investigation')).toBeGreaterThan(0);
  });

  test('a model that repeats the API key: the key never reaches the answer nor the database', async () => {
    stand.mode = 'echo-key';
    const d = await rca(s.events.crash_loop);
    expect(d.answered_by).toMatch(/^model:/);
    expect(d.summary).toContain('[redacted]');
    const f = await followup({ account_id: AWS, message: 'What broke checkout?', conversation_id: null });
    expect(f.response).toContain('[redacted]');
    for (const text of [JSON.stringify(d), JSON.stringify(f)]) expect(text).not.toContain(API_KEY);
    const [leaks] = await sql(
      `SELECT (SELECT count(*) FROM ai_event_analysis WHERE strpos(data::text, $1) > 0)::int + (SELECT count(*) FROM ai_message WHERE strpos(content, $1) > 0)::int
            + (SELECT count(*) FROM ai_memory WHERE strpos(content, $1) > 0)::int AS n`,
      [API_KEY],
    );
    expect(leaks!.n).toBe(0);
  });

  test('a model answering HTTP 500 leaves the answer to the built-in analyst, which says so; no usage is recorded', async () => {
    const usage = (await usageRows()).length;
    const before = stand.requests.length;
    stand.mode = 'fail';
    const d = await rca(s.events.image_pull);
    expect(stand.requests.length).toBe(before + 1);
    expect(d).toMatchObject({ analyst: 'built-in analyst', answered_by: 'builtin', fallback: 'http' });
    expect(d.notice).toBe(
      'The language model did not answer (the model answered HTTP 500); the built-in analyst answered instead.',
    );
    expect(d.summary.startsWith(`${d.notice} Built-in analyst: `)).toBe(true);
    expect(d.root_causes[0].cause).toBe('image_pull');
    await expectExisting(d.root_causes[0].evidence);
    const f = await followup({
      account_id: AWS,
      message: 'Why does billing-ui fail to pull its image?',
      conversation_id: null,
    });
    expect(f.answered_by).toBe('builtin');
    expect(f.response).toMatch(
      /^The language model did not answer \(the model answered HTTP 500\); the built-in analyst answered instead\.\n\nBuilt-in analyst answering\./,
    );
    expect(f.references.map(key)).toContain(`event:${s.events.image_pull}`);
    expect((await usageRows()).length).toBe(usage);
  });

  test(`a model slower than AI_TIMEOUT_MS (${TIMEOUT_MS} ms) leaves the answer to the built-in analyst, which says so`, async () => {
    const usage = (await usageRows()).length;
    const before = stand.requests.length;
    stand.mode = 'slow';
    const started = Date.now();
    const d = await rca(s.events.failed_scheduling);
    const took = Date.now() - started;
    expect(stand.requests.length).toBe(before + 1);
    expect(took).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
    expect(took).toBeLessThan(TIMEOUT_MS + 5000);
    expect(d).toMatchObject({
      answered_by: 'builtin',
      fallback: 'timeout',
      notice: `The language model did not answer (the model did not answer within ${TIMEOUT_MS} ms); the built-in analyst answered instead.`,
    });
    expect(d.root_causes[0].cause).toBe('failed_scheduling');
    const f = await followup({ account_id: AWS, message: 'Why is ml-trainer pending?', conversation_id: null });
    expect(f.answered_by).toBe('builtin');
    expect(f.response).toContain(`did not answer within ${TIMEOUT_MS} ms`);
    expect((await usageRows()).length).toBe(usage);
  });

  test('a used-up budget: the model is not asked, and the answer says why', async () => {
    const b = await budget();
    const used = b.investigation.account.current_usage;
    expect(used).toBeGreaterThan(0);
    await sql(
      `INSERT INTO ai_budget (tenant_id, cloud_account_id, module, account_tokens) VALUES ($1::uuid, $2::uuid, 'investigation', $3::bigint)`,
      [acme.id, AWS, String(used)],
    );
    try {
      expect((await budget()).investigation.account).toEqual({
        budget_limit: used,
        budget_remaining: 0,
        current_usage: used,
        limit_source: 'account',
        rate_limit: true,
      });
      const before = stand.requests.length;
      const d = await rca(s.events.node_pressure);
      expect(stand.requests.length).toBe(before);
      expect(d).toMatchObject({ answered_by: 'builtin', fallback: 'budget' });
      expect(d.notice).toContain(`the account has used its investigation budget of ${used} tokens this month`);
      expect(d.root_causes[0].cause).toBe('node_pressure');
      // Conversations count against the other module, which still has budget.
      const f = await followup({
        account_id: AWS,
        message: 'Which node is under memory pressure?',
        conversation_id: null,
      });
      expect(f.answered_by).toMatch(/^model:/);
      expect(stand.requests.length).toBe(before + 1);
    } finally {
      await sql(`DELETE FROM ai_budget WHERE tenant_id = $1::uuid`, [acme.id]);
    }
  });

  test('the API key appears in no answer and no log line', () => {
    expect(responses.length).toBeGreaterThan(10);
    expect(logs.length).toBeGreaterThan(0); // the logger did run (start-up at least)
    for (const res of responses) expect(res.text).not.toContain(API_KEY);
    for (const line of [...logs, ...printed]) expect(line).not.toContain(API_KEY);
    // The key was really sent, to the model only.
    expect(stand.requests.every((r) => r.authorization === `Bearer ${API_KEY}`)).toBe(true);
  });
});
