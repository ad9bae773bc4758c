import { Cancellation, RequestBudget } from '../engine/compile/execute/request-budget';

/**
 * A request's cancel signal (engine/compile/execute/request-budget.ts) lets go of its listeners when
 * the request ends: a listener left on it keeps what it closes over alive as long as anything points
 * at the request.
 */
describe('a request’s cancel signal', () => {
  const limits = { maxTotalRows: 10, maxResponseBytes: 1000, requestTimeoutMs: 60_000 };

  test('an abort calls each listener once, and a removed one not at all', () => {
    const signal = new Cancellation();
    const heard: string[] = [];
    const removed = () => heard.push('removed');
    signal.addEventListener('abort', () => heard.push('kept'));
    signal.addEventListener('abort', removed);
    signal.removeEventListener('abort', removed);
    signal.abort();
    signal.abort();
    expect(heard).toEqual(['kept']);
    expect(signal.aborted).toBe(true);
  });

  test('a disposed budget’s signal keeps no listener: an abort after it calls none', () => {
    const budget = new RequestBudget(limits);
    const heard: string[] = [];
    budget.signal.addEventListener('abort', () => heard.push('statement'), { once: true });
    budget.dispose();
    // The deadline's timer is stopped by dispose; the signal is aborted by hand to see who still listens.
    (budget.signal as Cancellation).abort();
    expect(heard).toEqual([]);
  });

  test('a budget not disposed still tells its listeners at the deadline', async () => {
    const budget = new RequestBudget({ ...limits, requestTimeoutMs: 5 });
    const heard = new Promise<string>((resolve) => budget.signal.addEventListener('abort', () => resolve('statement')));
    await expect(budget.expired).rejects.toMatchObject({ code: 'timeout' });
    expect(await heard).toBe('statement');
    budget.dispose();
  });
});
