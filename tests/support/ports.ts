import { createServer, type AddressInfo } from 'node:net';

/**
 * A loopback port that was free a moment ago: for a server that must know its own address before it
 * listens (the engine's NEXTAUTH_URL), or as an address nothing listens on (a service that is down).
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
