import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy of a test's own in front of the shared PostgreSQL, to watch (and hold back) what a
 * client sends on the wire. PostgreSQL-only tests: PGlite has no wire.
 */
export interface WireProxy {
  /** The target's URL with the proxy's host and port. */
  url: string;
  /** Per connection through the proxy, in the order they were made: the bytes its client sent so far. */
  connections: Buffer[][];
  /** The proxy's own ports towards PostgreSQL (pg_stat_activity's client_port) of its open connections. */
  upstreamPorts(): number[];
  close(): Promise<void>;
}

/**
 * What the client sends is passed on in order, each chunk after `before(chunk)` has settled: a test
 * delays a message by returning a promise. Either side closing, by an end or an error, closes both.
 */
export async function wireProxy(target: URL, before?: (chunk: Buffer) => Promise<void> | void): Promise<WireProxy> {
  const connections: Buffer[][] = [];
  const sockets = new Set<Socket>();
  const upstreams = new Set<Socket>();
  const server: Server = createServer((client) => {
    const sent: Buffer[] = [];
    connections.push(sent);
    const upstream = connect(Number(target.port || 5432), target.hostname);
    upstreams.add(upstream);
    upstream.on('close', () => upstreams.delete(upstream));
    for (const [s, other] of [
      [client, upstream],
      [upstream, client],
    ]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => {
        sockets.delete(s);
        other.destroy();
      });
    }
    let passed: Promise<void> = Promise.resolve();
    client.on('data', (chunk: Buffer) => {
      sent.push(chunk);
      passed = passed.then(async () => {
        await before?.(chunk);
        if (!upstream.destroyed) upstream.write(chunk);
      });
    });
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = new URL(target.href);
  url.host = `127.0.0.1:${port}`;
  return {
    url: url.href,
    connections,
    upstreamPorts: () => [...upstreams].map((s) => s.localPort).filter((p): p is number => p !== undefined),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
