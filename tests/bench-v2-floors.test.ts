import { floorRowsOf, rowsDifference } from '../bench/compare';
import { V2_WORKLOADS } from '../bench/workloads-v2';
import { DEMO } from '../demo/demo-data';
import { backendName } from './support/database';
import { as, startTestServer, type TestServer } from './support/server';

/**
 * `npm run bench -- v2` compares every `_v2` operation with a floor written by hand before loading
 * either (bench/workloads-v2.ts): here the same comparison on the demo data, through HTTP, so that a
 * floor that answers something else than the engine is caught without running the bench.
 */
const admin = as('tenant_admin', DEMO.tenants.acme.id, DEMO.tenants.acme.users.admin.id);

describe(`the bench's _v2 floors answer what the engine answers, on ${backendName}`, () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  test.each(V2_WORKLOADS.map((w) => [w.name, w] as const))('%s', async (_name, w) => {
    const res = await server.gql(w.query, w.variables, admin);
    expect(res.body.errors).toBeUndefined();
    const field = w.floor!.field!;
    const engine = res.body.data[field].rows as Record<string, unknown>[];
    // The bench refuses an empty answer: the demo data must give each request rows.
    expect(engine.length).toBeGreaterThan(0);
    const floor = floorRowsOf(w.floor!.columns, await server.started.db.query(w.floor!.sql, w.floor!.params));
    expect(rowsDifference(w.floor!.columns, engine, floor)).toBeUndefined();
  });

  test('a floor that answers other rows is caught', async () => {
    const w = V2_WORKLOADS.find((x) => x.name === 'v2_anomalies')!;
    const res = await server.gql(w.query, w.variables, admin);
    const engine = res.body.data[w.floor!.field!].rows as Record<string, unknown>[];
    const floor = floorRowsOf(w.floor!.columns, await server.started.db.query(w.floor!.sql, w.floor!.params));
    expect(rowsDifference(w.floor!.columns, engine, floor.slice(1))).toMatch(/rows/);
    expect(rowsDifference(w.floor!.columns, engine, [...floor].reverse())).toMatch(/^row 0/);
  });
});
