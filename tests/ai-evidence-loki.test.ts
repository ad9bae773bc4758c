import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lokiLineId } from '../actions/ai/evidence';
import { parseSelector } from '../actions/logs/selector';
import { DEMO } from '../demo/demo-data';
import { INCIDENT_KINDS, seedAiIncidents, type SeededIncidents } from './support/ai-incidents';
import { backendName } from './support/database';
import { as, startTestServer, type TestServer } from './support/server';

/**
 * With LOKI_URL set, the AI analyses read an event's log lines from Loki, as logs_query does: the
 * seeded incidents' lines are moved out of the logs table into a stand-in Loki on loopback, which
 * answers query_range by the matchers it receives. The analyst still names each cause first, citing
 * Loki's lines (ids `loki:<hash>`, quoted as Loki has them); every query is confined to the event's
 * account; a Loki that fails leaves the analysis without log lines, not without an answer.
 */
const acme = DEMO.tenants.acme;
const AWS = acme.cloudAccounts.aws;
const admin = as('tenant_admin', acme.id, acme.users.admin.id);
const RCA = `query($a: String!, $e: String!) { ai_get_rca(account_id: $a, event_id: $e, generate: true) { data } }`;

interface Line {
  ns: bigint;
  labels: Record<string, string>;
  message: string;
}
type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A Loki that holds `lines` and answers query_range with those its `=` matchers and time range select. */
function standInLoki(lines: Line[]) {
  const queries: URLSearchParams[] = [];
  let failing = false;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://loki.invalid');
    queries.push(url.searchParams);
    if (failing || url.pathname !== '/loki/api/v1/query_range') {
      res.writeHead(failing ? 503 : 404).end('unavailable');
      return;
    }
    const sel = parseSelector(url.searchParams.get('query'));
    const start = BigInt(url.searchParams.get('start') ?? '0');
    const end = BigInt(url.searchParams.get('end') ?? String(2n ** 62n));
    const hits = lines.filter(
      (l) => l.ns >= start && l.ns < end && sel.matchers.every((m) => m.op === '=' && l.labels[m.label] === m.value),
    );
    const streams = new Map<string, { stream: Record<string, string>; values: [string, string][] }>();
    for (const l of hits
      .sort((a, b) => (a.ns < b.ns ? 1 : -1))
      .slice(0, Number(url.searchParams.get('limit') ?? 100))) {
      const key = JSON.stringify(l.labels);
      if (!streams.has(key)) streams.set(key, { stream: l.labels, values: [] });
      streams.get(key)!.values.push([l.ns.toString(), l.message]);
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ status: 'success', data: { resultType: 'streams', result: [...streams.values()] } }));
  });
  return {
    queries,
    fail: (on: boolean) => (failing = on),
    listen: () =>
      new Promise<string>((resolve) =>
        server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
      ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe(`AI evidence from Loki on ${backendName}`, () => {
  const lines: Line[] = [];
  const loki = standInLoki(lines);
  let server: TestServer;
  let s: SeededIncidents;
  /** What each seeded log id became in Loki. */
  const lokiIdOf = new Map<string, string>();
  const rca = async (event: string) => {
    const res = await server.gql(RCA, { a: AWS, e: event }, admin);
    expect(res.body.errors).toBeUndefined();
    return res.body.data.ai_get_rca.data as Row;
  };

  beforeAll(async () => {
    server = await startTestServer({ env: { LOKI_URL: await loki.listen(), LOKI_TIMEOUT_MS: '3000' } });
    s = await seedAiIncidents(server.started.db, acme.id, AWS);
    // Every line of the account moves to Loki, with the account label log shippers set; the table keeps none.
    const rows = await server.started.db.query(
      `SELECT id::text AS id, (extract(epoch FROM ts) * 1000)::bigint::text AS ms, severity, message, labels::text AS labels
         FROM logs WHERE tenant_id = $1::uuid AND cloud_account_id = $2::uuid`,
      [acme.id, AWS],
    );
    for (const r of rows) {
      const labels = { ...JSON.parse(String(r.labels)), cloud_account_id: AWS, level: String(r.severity) };
      const line = { ns: BigInt(String(r.ms)) * 1_000_000n, labels, message: String(r.message) };
      lines.push(line);
      lokiIdOf.set(
        String(r.id),
        lokiLineId({
          timestamp: new Date(Number(r.ms)).toISOString(),
          severity: String(r.severity),
          message: line.message,
          labels,
        }),
      );
    }
    await server.started.db.query('DELETE FROM logs WHERE tenant_id = $1::uuid AND cloud_account_id = $2::uuid', [
      acme.id,
      AWS,
    ]);
    expect(lines.length).toBeGreaterThan(20);
  });
  afterAll(async () => {
    await server.close();
    await loki.close();
  });

  // Not cost_spike: its event is on a cloud resource, with no namespace or node whose lines to read.
  test.each(INCIDENT_KINDS.filter((k) => k !== 'cost_spike'))(
    '%s: the cause first, citing the lines Loki holds',
    async (kind) => {
      const before = loki.queries.length;
      const d = await rca(s.events[kind]);
      expect(d.root_causes[0].cause).toBe(kind);
      const asked = loki.queries.slice(before);
      expect(asked.length).toBeGreaterThan(0);
      // Every query names the event's account first, and a window around the event.
      for (const q of asked) {
        expect(q.get('query')).toMatch(new RegExp(`^\\{cloud_account_id="${AWS}", (namespace|node|host)="[^"]+"\\}$`));
        expect(BigInt(q.get('end')!) - BigInt(q.get('start')!)).toBe(3n * 3600n * 1_000_000_000n + 1n);
      }
      const cited = [...d.references, ...d.root_causes.flatMap((c: Row) => c.evidence)].filter(
        (r: Row) => r.type === 'log',
      );
      const incidentLines = new Set((s.logs[kind] ?? []).map((id) => lokiIdOf.get(id)));
      if (incidentLines.size > 0) {
        expect(cited.some((r: Row) => incidentLines.has(r.id))).toBe(true);
        // Never a noise line, nor another incident's.
        const foreign = new Set(
          [...s.logs.noise!, ...INCIDENT_KINDS.filter((k) => k !== kind).flatMap((k) => s.logs[k] ?? [])].map((id) =>
            lokiIdOf.get(id),
          ),
        );
        expect(cited.filter((r: Row) => foreign.has(r.id))).toEqual([]);
      }
      // A cited line is quoted as Loki has it.
      for (const e of d.root_causes[0].evidence.filter((x: Row) => x.type === 'log')) {
        expect(lines.map((l) => l.message)).toContain(e.excerpt);
        expect(e.id).toMatch(/^loki:[0-9a-f]{24}$/);
      }
    },
  );

  test('Loki failing: the analysis answers without log lines', async () => {
    loki.fail(true);
    try {
      const d = await rca(s.events.out_of_memory);
      expect(d.status).toBe('completed');
      expect(d.references.filter((r: Row) => r.type === 'log')).toEqual([]);
      expect(d.root_causes[0].cause).toBe('out_of_memory'); // the event and the pod still say so
    } finally {
      loki.fail(false);
    }
  });
});
