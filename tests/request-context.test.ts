import { AsyncLocalStorage, createHook } from 'node:async_hooks';
import { currentRequest, withRequest, type RequestRecord } from '../engine/core/request-context';

/**
 * The request record that audit events and action spans find without being handed it: each request
 * inside `withRequest` sees its own across awaits, and once none is inside, AsyncLocalStorage is
 * disabled again, so that the promises of requests that never enter (the GraphQL path) run no hook.
 */
const record = (id: string): RequestRecord => ({ id, rows: 0 });
const tick = () => new Promise((r) => setImmediate(r));

/**
 * The promises made in the next ticks that carry a store's symbol: `mine` names the store by a record
 * it holds (any other AsyncLocalStorage of the process, a library's or an earlier test file's, has a
 * symbol of its own and is not counted). Returns the symbols seen holding `marker`, and the count of
 * promises with one of `symbols` (counted by a hook of our own, which runs after the store's hook).
 */
function promisesWith(marker: RequestRecord, symbols: Set<symbol>): Promise<{ found: Set<symbol>; count: number }> {
  return new Promise((resolve) => {
    const found = new Set<symbol>();
    let count = 0;
    // While enabled, the store's hook copies the current store onto each new promise under its own
    // kResourceStore symbol (undefined outside a request); disabled, it writes nothing.
    const hook = createHook({
      init(_id, type, _trigger, resource) {
        if (type !== 'PROMISE') return;
        const own = Object.getOwnPropertySymbols(resource);
        for (const s of own) if ((resource as Record<symbol, unknown>)[s] === marker) found.add(s);
        if (own.some((s) => symbols.has(s))) count++;
      },
    }).enable();
    void (async () => {
      for (let i = 0; i < 20; i++) await tick();
      hook.disable();
      resolve({ found, count });
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
    // Another store of the process stays enabled (as a library's may): it keeps the process's hook
    // running, but not for ours.
    const other = new AsyncLocalStorage<object>();
    other.run({}, () => undefined);
    const marker = record('x');
    let mine = new Set<symbol>();
    await withRequest(marker, async () => {
      mine = (await promisesWith(marker, new Set())).found;
    });
    const after = await promisesWith(marker, mine);
    // Inside, the store wrote its symbol on new promises; after, none.
    other.disable();
    expect(mine.size).toBe(1);
    expect(after.count).toBe(0);
  });
});
