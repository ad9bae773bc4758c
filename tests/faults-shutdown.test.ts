import postgres from 'postgres';
import { backendName, createTestDatabase, onPostgres, type TestDatabase } from './support/database';
import { startEngineProcess, type EngineProcess } from './support/engine-process';
import { ADMIN_SECRET } from './support/server';

/**
 * SIGTERM under load, to the real engine in its own process: it stops accepting connections, lets the
 * requests in flight finish, then closes the pool and exits 0, logging each step. No request that
 * reached it before the signal fails. On PostgreSQL some of those requests are made to wait on a lock
 * that is released only after the signal, so that they are certainly still running when it comes.
 */
const QUERY = JSON.stringify({ query: '{ spends(limit: 100, order_by: {id: asc}) { id } }' });
const headers = { 'content-type': 'application/json', 'x-hasura-admin-secret': ADMIN_SECRET };

interface Outcome {
  started: number;
  ended: number;
  status?: number;
  text?: string;
  failure?: string;
}

async function request(url: string): Promise<Outcome> {
  const started = Date.now();
  try {
    const res = await fetch(`${url}/api/graphql`, { method: 'POST', headers, body: QUERY });
    const text = await res.text();
    return { started, ended: Date.now(), status: res.status, text };
  } catch (err) {
    return { started, ended: Date.now(), failure: String((err as Error).cause ?? err) };
  }
}

const succeeded = (o: Outcome) => o.status === 200 && JSON.parse(o.text!).data?.spends?.length > 0;

describe(`SIGTERM under load on ${backendName}`, () => {
  let database: TestDatabase;
  let engine: EngineProcess;

  beforeAll(async () => {
    // The demo data is the load; the first start that makes it is not this test's subject.
    database = await createTestDatabase({ persistent: true, seeded: true });
    engine = await startEngineProcess({
      ...database.env,
      ADMIN_SECRET,
      SEED_DEMO_DATA: 'true',
      SHUTDOWN_DRAIN_SECONDS: '10',
    });
    expect(succeeded(await request(engine.url))).toBe(true);
  }, 180_000);
  afterAll(async () => {
    await engine?.stop();
    await database?.drop();
  });

  test('requests in flight at the signal all finish; then the pool closes and the process exits 0', async () => {
    const outcomes: Outcome[] = [];
    let signalled = false;
    const loop = async () => {
      for (;;) {
        const o = await request(engine.url);
        outcomes.push(o);
        if (o.failure || signalled) return; // after the signal: one more try at most
      }
    };
    const loops = Array.from({ length: 16 }, loop);
    const held = onPostgres ? await holdSpendsLock(database) : undefined;
    const waiting = held ? Array.from({ length: 6 }, () => request(engine.url)) : [];
    await new Promise((r) => setTimeout(r, 1000));

    const signalAt = Date.now();
    signalled = true;
    engine.child.kill('SIGTERM');
    if (held) setTimeout(() => void held.release(), 1000);
    const code = await engine.exited;
    await Promise.all(loops);
    const all = [...outcomes, ...(await Promise.all(waiting))];

    expect(code).toBe(0);
    const before = all.filter((o) => o.started < signalAt);
    const inFlight = before.filter((o) => o.ended > signalAt);
    expect(inFlight.length).toBeGreaterThan(0);
    if (held) expect(inFlight.filter((o) => o.ended - signalAt >= 900).length).toBeGreaterThanOrEqual(6);
    const failed = before.filter((o) => !succeeded(o));
    expect(failed).toEqual([]);
    // Afterwards a request finds nothing listening; none is answered with an error.
    for (const o of all.filter((x) => x.started >= signalAt)) if (!o.failure) expect(succeeded(o)).toBe(true);

    const log = engine.output();
    const steps = [
      'SIGTERM received',
      'shutting down: no longer accepting connections',
      'requests in flight finished',
      'database pool closed',
    ];
    const at = steps.map((s) => log.indexOf(s));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  }, 60_000);
});

/** A lock on spends that the engine's requests wait on, held until `release`. */
async function holdSpendsLock(database: TestDatabase): Promise<{ release(): Promise<void> }> {
  const sql = postgres(database.env.DATABASE_URL, { max: 1, onnotice: () => undefined });
  let release: () => void = () => undefined;
  const released = new Promise<void>((r) => (release = r));
  let locked: () => void = () => undefined;
  const isLocked = new Promise<void>((r) => (locked = r));
  const tx = sql.begin(async (t) => {
    await t`LOCK TABLE spends IN ACCESS EXCLUSIVE MODE`;
    locked();
    await released;
  });
  await isLocked;
  return {
    async release() {
      release();
      await tx;
      await sql.end();
    },
  };
}
