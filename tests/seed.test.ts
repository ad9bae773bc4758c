import { createHash } from 'node:crypto';
import postgres from 'postgres';
import { loadConfig } from '../engine/core/config';
import { connectDatabase } from '../engine/core/db/connect';
import type { Database } from '../engine/core/db/database';
import { migrate } from '../engine/core/db/migrate';
import { DEMO } from '../demo/demo-data';
import { copyField, copyLine, copyTarget, sqlLiteral } from '../demo/load';
import { expectedCounts, generatedTables, planScale, SHAPE, type ScalePlan } from '../demo/scale';
import { readSeedState, seedDemoData, seedDemoScale, verifyForeignKeys } from '../demo/seed';
import { backendName, createTestDatabase, onPostgres, type TestDatabase } from './support/database';

/** Every generated row of a plan as COPY text, per table. */
function render(plan: ScalePlan): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const t of generatedTables(plan)) {
    const lines: string[] = [];
    for (const batch of t.batches()) for (const row of batch) lines.push(copyLine(row));
    out[t.name] = lines;
  }
  return out;
}

const digest = (tables: Record<string, string[]>) => createHash('sha256').update(JSON.stringify(tables)).digest('hex');

describe('generated demo data', () => {
  test('scale 1 is the same rows on every run', () => {
    const a = render(planScale({ scale: 1, tenants: 2 }));
    const b = render(planScale({ scale: 1, tenants: 2 }));
    expect(digest(a)).toBe(digest(b));
    expect(a.spends!.length).toBe(100_800);
  });

  test('a larger scale adds accounts and leaves the first ones as they were', () => {
    const one = render(planScale({ scale: 1, tenants: 2 }));
    const more = render(planScale({ scale: 1.5, tenants: 2 }, 14));
    const whole = render(planScale({ scale: 1.5, tenants: 2 }));
    for (const table of Object.keys(whole)) expect([...one[table]!, ...more[table]!]).toEqual(whole[table]);
  });

  test('row counts follow the shape: 14 accounts per unit of scale, 40 resources, 180 days of spends', () => {
    const plan = planScale({ scale: 1, tenants: 2 });
    const counts = expectedCounts(plan);
    const accounts = 14;
    // Accounts are dealt to the tenants in turn; a tenant's odd-numbered accounts run a cluster.
    const clusters = 2 * 4;
    expect(counts.cloud_accounts).toBe(accounts);
    expect(counts.cloud_resourses).toBe(accounts * 40);
    expect(counts.spends).toBe(accounts * 40 * 180);
    expect(counts.recommendation).toBe(accounts * 6);
    expect(counts.events).toBe(accounts * 30);
    expect(counts.anomaly).toBe(accounts * 10);
    expect(counts.auto_pilot).toBe(accounts * 2);
    expect(counts.auto_pilot_approval_policy).toBe(accounts);
    expect(counts.k8s_nodes).toBe(clusters * 5);
    expect(counts.k8s_workloads).toBe(clusters * 12);
    expect(counts.k8s_pods).toBe(clusters * 26);
    expect(counts.agent).toBe(clusters);
    expect(counts.auto_playbook).toBe(clusters * 2);
    expect(counts.knowledge_graph_node).toBe(accounts * 41 + clusters * 22);
    expect(counts.tenant).toBe(0);
    expect(expectedCounts(planScale({ scale: 100, tenants: 2 })).spends).toBe(10_080_000);
    // What the generators yield is what the formula says.
    const rendered = render(plan);
    for (const [table, n] of Object.entries(counts)) expect([table, rendered[table]?.length ?? 0]).toEqual([table, n]);
    expect(SHAPE.cluster.pods).toBe(26);
  });

  test('generated tenants have an admin and a read-only user, and accounts of their own', () => {
    const plan = planScale({ scale: 1, tenants: 4 });
    const rows = render(plan);
    expect(rows.tenant).toHaveLength(2);
    expect(rows.user_roles!.map((l) => l.split('\t')[2]).sort()).toEqual([
      'tenant_admin',
      'tenant_admin',
      'tenant_admin_readonly',
      'tenant_admin_readonly',
    ]);
    const tenantsWithAccounts = new Set(rows.cloud_accounts!.map((l) => l.split('\t')[1]));
    expect(tenantsWithAccounts.size).toBe(4);
    expect(tenantsWithAccounts.has(DEMO.tenants.acme.id)).toBe(true);
  });

  test('values are written as COPY text and SQL literals', () => {
    expect(copyField(null)).toBe('\\N');
    expect(copyField('a\tb\nc\\d\re')).toBe('a\\tb\\nc\\\\d\\re');
    expect(copyField(true)).toBe('t');
    expect(copyField({ q: 'x"y\\z' })).toBe('{"q":"x\\\\"y\\\\\\\\z"}');
    expect(sqlLiteral("O'Brien")).toBe("'O''Brien'");
    expect(sqlLiteral({ a: "it's" })).toBe(`'{"a":"it''s"}'`);
    expect(sqlLiteral(null)).toBe('NULL');
    expect(sqlLiteral(1.25)).toBe('1.25');
  });
});

describe(`seeding generated demo data on ${backendName}`, () => {
  let database: TestDatabase;
  let db: Database;
  let raw: postgres.Sql | undefined;
  const tables = Object.keys(expectedCounts(planScale({ scale: 1, tenants: 2 })));

  const countAll = async (): Promise<Record<string, number>> => {
    const [row] = await db.query(
      `SELECT json_build_object(${tables.map((t) => `'${t}', (SELECT count(*) FROM ${t})`).join(', ')})::text AS j`,
    );
    return JSON.parse(String(row!.j));
  };
  const delta = (after: Record<string, number>, before: Record<string, number>) =>
    Object.fromEntries(tables.map((t) => [t, after[t]! - before[t]!]));
  // On PostgreSQL the rows go through COPY, as `npm run seed` sends them; on PGlite through INSERTs.
  const target = () => (raw ? copyTarget(raw) : undefined);

  beforeAll(async () => {
    // The run's migrated template, without the demo set; migrate finds nothing left to apply.
    database = await createTestDatabase({ migrated: true });
    const config = loadConfig(database.env);
    config.dataDirSnapshot = database.snapshot;
    db = await connectDatabase(config);
    await migrate(db, config.migrationsDir);
    if (onPostgres) raw = postgres(database.env.DATABASE_URL!, { max: 1, onnotice: () => undefined });
  });

  afterAll(async () => {
    await raw?.end({ timeout: 5 });
    await db?.close();
    await database?.drop();
  });

  test('refuses a database without the demo set', async () => {
    await expect(seedDemoScale(db, { scale: 1, target: target() })).rejects.toThrow(/demo set/);
  });

  // Scales of a few accounts: the generators' whole shape at a seventh of scale 1's rows (14,400 spend
  // lines, not 100,800), which PGlite inserts row by row with every foreign key checked.
  test('scale 1/7 goes in on top of the demo set, foreign keys checked row by row, with the counts of the formula', async () => {
    expect(await seedDemoData(db)).toBe(true);
    const before = await countAll();
    const result = await seedDemoScale(db, { scale: 2 / 14, target: target(), foreignKeys: 'per-row' });
    expect(result.seeded).toBe(true);
    expect(result.foreignKeys?.mode).toBe('per-row');
    expect(delta(await countAll(), before)).toEqual(expectedCounts(planScale({ scale: 2 / 14, tenants: 2 })));
    expect(await readSeedState(db)).toEqual({ scale: 2 / 14, tenants: 2, accounts: 2 });
    // The demo set is as it was.
    const [acme] = await db.query('SELECT count(*)::int AS n FROM spends WHERE cloud_account = $1::uuid', [
      DEMO.tenants.acme.cloudAccounts.aws,
    ]);
    expect(acme!.n).toBe(DEMO.perTenant.resourcesPerAccount * DEMO.perTenant.spendDays);
  }, 240_000);

  test('running again adds nothing; a larger scale adds only the missing accounts', async () => {
    const before = await countAll();
    const again = await seedDemoScale(db, { scale: 2 / 14, target: target() });
    expect(again.seeded).toBe(false);
    expect(await countAll()).toEqual(before);
    await expect(seedDemoScale(db, { scale: 2, tenants: 3, target: target() })).rejects.toThrow(/--tenants 2/);
    // By default a superuser loads without the per-row checks and checks every foreign key after.
    const more = await seedDemoScale(db, { scale: 4 / 14, target: target() });
    expect(more.seeded).toBe(true);
    expect(more.foreignKeys?.mode).toBe('after-load');
    expect(more.foreignKeys!.constraints).toBeGreaterThan(50);
    expect(delta(await countAll(), before)).toEqual(expectedCounts(planScale({ scale: 4 / 14, tenants: 2 }, 2)));
    expect((await readSeedState(db))!.accounts).toBe(4);
  }, 240_000);

  test('the checks after a load find a row that breaks a foreign key, and nothing is kept', async () => {
    const missing = '11111111-0002-4000-9000-ffffff000000';
    const attempt = db.transaction(async (tx) => {
      await tx.exec('SET LOCAL session_replication_role = replica');
      await tx.query(
        `INSERT INTO spends (tenant, cloud_account, date, amount) VALUES ($1::uuid, $2::uuid, '2026-01-01', 1)`,
        [DEMO.tenants.acme.id, missing],
      );
      await tx.exec('SET LOCAL session_replication_role = origin');
      await verifyForeignKeys(tx, ['spends', 'events']);
    });
    await expect(attempt).rejects.toThrow(/spends break its foreign key spends_cloud_account_fkey/);
    const [row] = await db.query('SELECT count(*)::int AS n FROM spends WHERE cloud_account = $1::uuid', [missing]);
    expect(row!.n).toBe(0);
  });
});
