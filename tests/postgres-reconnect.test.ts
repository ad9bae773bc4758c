import * as net from 'node:net';
import type { Database } from '../engine/core/db/database';
import { connectPostgres } from '../engine/core/db/postgres';
import { onPostgres } from './support/database';

/**
 * An engine's PostgreSQL connection after the server reset it (engine/core/db/postgres.ts, placer). A
 * statement sent in the turn that reads the reset is due on the next turn, after the close has been
 * handled: postgres.js 3.4.9 then keeps that connection believing a write is on its way, and sends
 * nothing on it again, not even the start-up message of a reconnection, so each later attempt ends at
 * the connect timeout. The engine gives such a connection a new postgres.js pool: every statement
 * after the reset is answered.
 *
 * The server's reset is a TCP proxy in front of PostgreSQL that resets every client socket at once.
 */
interface Proxy {
  url: string;
  closeAll(): void;
  stop(): Promise<void>;
}

async function startProxy(target: URL): Promise<Proxy> {
  const pairs = new Set<[net.Socket, net.Socket]>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const url = new URL(target.href);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.href,
    closeAll: () => {
      // A reset, as a server process that ended does: the client's socket closes in the turn it reads it.
      for (const [client, upstream] of pairs) {
        client.resetAndDestroy();
        upstream.destroy();
      }
    },
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const suite = onPostgres ? describe : describe.skip;

suite('PostgreSQL connections reset by the server', () => {
  let proxy: Proxy;
  let db: Database;

  beforeAll(async () => {
    proxy = await startProxy(new URL(process.env.DATABASE_URL!));
  });
  afterAll(async () => {
    await db?.close();
    await proxy?.stop();
  });

  test('a statement sent as its connection closes does not leave a connection that never sends again: every later statement is answered', async () => {
    db = connectPostgres(proxy.url, { poolSize: 1, statementTimeoutMs: 5000, connectTimeoutMs: 400 });
    expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    // A statement sent from every check phase (setImmediate) while the server closes the connection:
    // the one sent in the turn whose poll phase read the close is written on the next turn, after
    // the close phase has run postgres.js's close handler.
    const failures: string[] = [];
    const sent: Promise<unknown>[] = [];
    await new Promise<void>((resolve) => {
      let turns = 0;
      const send = () => {
        sent.push(db.query('SELECT 1').catch((err: { code?: string }) => failures.push(String(err.code))));
        if (++turns === 5) proxy.closeAll();
        if (turns < 200) setImmediate(send);
        else resolve();
      };
      setImmediate(send);
    });
    await Promise.all(sent);
    expect(failures.length).toBeGreaterThan(0);
    expect(failures).not.toContain('CONNECT_TIMEOUT');
    // Then, the server there again: each statement answered at once.
    for (let round = 0; round < 4; round++) {
      const start = Date.now();
      expect(await db.query('SELECT 1 AS one').catch((err) => err.code)).toEqual([{ one: 1 }]);
      expect(Date.now() - start).toBeLessThan(300);
    }
  }, 30_000);
});
