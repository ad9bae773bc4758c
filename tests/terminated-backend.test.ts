import { isConnectionFailure } from '../engine/core/db/faults';
import { runTs } from './support/auth';
import { onPostgres } from './support/database';

/**
 * A transaction whose backend is ended under it fails with a connection failure and the process stays
 * up: postgres.js 3.4.9 wrote its ROLLBACK on the closed connection, and that write threw from a timer
 * (the process ended). The statements after it, on the reconnected pool, answer whole rows (its row
 * count, left at 1 by a backend that ended mid-statement, put the next first row at index 1). On
 * PostgreSQL only (PGlite has no backends to end); in a process of its own, which a crash would end.
 */
(onPostgres ? describe : describe.skip)('a transaction whose backend is ended', () => {
  test('fails with a connection failure; the process survives and answers the next statements', async () => {
    const run = await runTs('tests/support/terminate-probe.ts', [], { DATABASE_URL: process.env.DATABASE_URL! });
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    const probe = JSON.parse(run.out) as { told: string[]; answers: unknown[] };
    expect(probe.told).toHaveLength(6);
    for (const code of probe.told) expect(isConnectionFailure({ code })).toBe(true);
    probe.answers.forEach((answer, x) => {
      if (typeof answer === 'string') expect(isConnectionFailure({ code: answer.replace(/^failed /, '') })).toBe(true);
      else expect(answer).toEqual([{ x }]);
    });
    // Only the first statements may meet what is left of an ended backend.
    expect(probe.answers.slice(-4)).toEqual([2, 3, 4, 5].map((x) => [{ x }]));
  });
});
