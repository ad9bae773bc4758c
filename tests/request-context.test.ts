import { createHook } from 'node:async_hooks';
import { currentRequest, withRequest, type RequestRecord } from '../engine/core/request-context';

/**
 * The request record that audit events and action spans find without being handed it: each request
 * inside `withRequest` sees its own across awaits, and once none is inside, AsyncLocalStorage is
 * disabled again, so that the promises of requests that never enter (the GraphQL path) run no hook.
 */
const record = (id: string): RequestRecord => ({ id, rows: 0 });
const tick = () => new Promise((r) => setImmediate(r));

/** Promises whose creation ran the store's hook (counted by a hook of our own). */
function promisesWithContext(): Promise<number> {
  return new Promise((resolve) => {
    let seen = 0;
    // Our own hook sees every promise after the store's hook (enabled before it) has run: while enabled,
    // the store's hook copies the current store (undefined outside a request) onto each new promise
    // under its kResourceStore symbol.
    const hook = createHook({
      init(_id, type, _trigger, resource) {
        if (type !== 'PROMISE') return;
        if (Object.getOwnPropertySymbols(resource).some((s) => s.description === 'kResourceStore')) seen++;
      },
    }).enable();
    void (async () => {
      for (let i = 0; i < 20; i++) await tick();
      hook.disable();
      resolve(seen);
    })();
  });
}

describe('the request record of request-context', () => {
  test('overlapping requests each see their own record across awaits, and none outside', async () => {
    const seen: string[] = [];
    const run = (id: string, waits: number) =>
      withRequest(record(id), async () => {
        for (let i = 0; i < waits; i++) await tick();
        seen.push(`${id}:${currentRequest()?.id}`);
      });
    await Promise.all([run('a', 3), run('b', 1), run('c', 5)]);
    expect(seen.sort()).toEqual(['a:a', 'b:b', 'c:c']);
    expect(currentRequest()).toBeUndefined();
  });

  test('a request that fails leaves no record behind', async () => {
    await expect(
      withRequest(record('failing'), async () => {
        await tick();
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(currentRequest()).toBeUndefined();
  });

  test('once no request is inside, new promises run no hook of the store (it is disabled)', async () => {
    let inside = 0;
    await withRequest(record('x'), async () => {
      inside = await promisesWithContext();
    });
    const after = await promisesWithContext();
    expect(inside).toBeGreaterThan(0);
    expect(after).toBe(0);
  });
});
