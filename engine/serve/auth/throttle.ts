import { createHash } from 'node:crypto';
import type { AuthConfig } from '../../core/config';
import type { Queryable } from '../../core/db/database';
import { normaliseEmail } from './users';

/**
 * Failed sign-in attempts, counted in PostgreSQL (table auth_failures) so that every instance sees the
 * same counts: per client address and per e-mail, in fixed windows of AUTH_FAILURE_WINDOW_SECONDS.
 * A key with AUTH_MAX_FAILURES failures in its window is refused until the window ends. Keys are
 * stored hashed: the table holds no e-mail addresses or client addresses.
 */
export const throttleKeys = (clientAddress: string, email: string): string[] => [
  hashKey(`client:${clientAddress}`),
  hashKey(`email:${normaliseEmail(email)}`),
];

export const emailKey = (email: string) => hashKey(`email:${normaliseEmail(email)}`);

function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Keys are hex digests, so a PostgreSQL array literal of them needs no quoting. */
const arrayLiteral = (keys: string[]) => `{${keys.join(',')}}`;

/** Seconds until the first of `keys` that is locked out may try again; 0 when none is. */
export async function lockedFor(db: Queryable, auth: AuthConfig, keys: string[]): Promise<number> {
  const [row] = await db.query(
    `SELECT coalesce(max(ceil(extract(epoch FROM window_start + make_interval(secs => $2::int) - now()))), 0)::int AS wait
     FROM auth_failures
     WHERE key = ANY($1::text[]) AND failures >= $3::int AND window_start > now() - make_interval(secs => $2::int)`,
    [arrayLiteral(keys), String(auth.failureWindowSeconds), String(auth.maxFailures)],
  );
  return Math.max(0, Number(row?.wait ?? 0));
}

let lastSweep = 0;

/** Counts one failure against each key; a key whose window has ended starts a new one. */
export async function recordFailure(db: Queryable, auth: AuthConfig, keys: string[]): Promise<void> {
  await db.query(
    `INSERT INTO auth_failures AS f (key, failures, window_start) SELECT k, 1, now() FROM unnest($1::text[]) AS k
     ON CONFLICT (key) DO UPDATE SET
       failures = CASE WHEN f.window_start <= now() - make_interval(secs => $2::int) THEN 1 ELSE f.failures + 1 END,
       window_start = CASE WHEN f.window_start <= now() - make_interval(secs => $2::int) THEN now() ELSE f.window_start END`,
    [arrayLiteral(keys), String(auth.failureWindowSeconds)],
  );
  // Ended windows are kept for nothing: sweep them, at most once a minute per process.
  if (Date.now() - lastSweep > 60_000) {
    lastSweep = Date.now();
    await db.query('DELETE FROM auth_failures WHERE window_start <= now() - make_interval(secs => $1::int)', [
      String(auth.failureWindowSeconds),
    ]);
  }
}

/** Forgets the failures of keys (the e-mail's, after a successful sign-in). */
export async function clearFailures(db: Queryable, keys: string[]): Promise<void> {
  await db.query('DELETE FROM auth_failures WHERE key = ANY($1::text[])', [arrayLiteral(keys)]);
}
