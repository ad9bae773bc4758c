import { createHash } from 'node:crypto';
import type { AuthConfig } from '../../core/config';
import type { Queryable } from '../../core/db/database';
import { normaliseEmail } from './users';

/**
 * Failed sign-in attempts (token exchange and browser sign-in), counted in PostgreSQL (table
 * auth_failures) so that every instance sees the same counts, in fixed windows of
 * AUTH_FAILURE_WINDOW_SECONDS. Three counters, each with its own limit:
 * - one client address guessing one e-mail's secret: AUTH_MAX_FAILURES;
 * - one e-mail guessed from many addresses: AUTH_MAX_FAILURES_PER_EMAIL;
 * - one address trying many e-mails (password spraying): AUTH_MAX_FAILURES_PER_ADDRESS, a ceiling high
 *   enough that the users behind one shared address (an office NAT) do not lock each other out.
 * A counter past its limit refuses until its window ends. Keys are stored hashed: the table holds no
 * e-mail addresses or client addresses.
 */
export interface ThrottleKey {
  key: string;
  limit: number;
  /** The e-mail counter's key, on the counters of one e-mail: clearing a user's lockout finds them by it. */
  emailKey?: string;
}

export function throttleKeys(auth: AuthConfig, clientAddress: string, email: string): ThrottleKey[] {
  const e = normaliseEmail(email);
  const emailKey = hashKey(`email:${e}`);
  return [
    { key: hashKey(`pair:${clientAddress}\n${e}`), limit: auth.maxFailures, emailKey },
    { key: emailKey, limit: auth.maxFailuresPerEmail, emailKey },
    { key: hashKey(`client:${clientAddress}`), limit: auth.maxFailuresPerAddress },
  ];
}

/**
 * Forgets failed sign-in attempts so that a locked-out user may sign in at once (`npm run admin --
 * clear-lockout`): with an e-mail, every counter of it (its own, and its counters per client address,
 * found by their email_key); with an address, that address's own counter (the password-spraying limit).
 * The number of counters cleared.
 */
export async function clearLockout(db: Queryable, by: { email?: string; clientAddress?: string }): Promise<number> {
  const emailKey = by.email === undefined ? null : hashKey(`email:${normaliseEmail(by.email)}`);
  const clientKey = by.clientAddress === undefined ? null : hashKey(`client:${by.clientAddress}`);
  const rows = await db.query(
    'DELETE FROM auth_failures WHERE email_key = $1::text OR key = $1::text OR key = $2::text RETURNING key',
    [emailKey, clientKey],
  );
  return rows.length;
}

/** What a success clears: the e-mail's counters, never the address's (a sprayer's one good account must not reset it). */
export const successKeys = (keys: ThrottleKey[]) => keys.slice(0, 2);

function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Keys are hex digests and limits integers, so PostgreSQL array literals of them need no quoting. */
const arrayLiteral = (items: (string | number)[]) => `{${items.join(',')}}`;

/** Seconds until every counter of `keys` that is at its limit may try again; 0 when none is. */
export async function lockedFor(db: Queryable, auth: AuthConfig, keys: ThrottleKey[]): Promise<number> {
  const [row] = await db.query(
    `SELECT coalesce(max(ceil(extract(epoch FROM f.window_start + make_interval(secs => $3::int) - now()))), 0)::int AS wait
     FROM auth_failures f JOIN unnest($1::text[], $2::int[]) AS k(key, lim) ON f.key = k.key
     WHERE f.failures >= k.lim AND f.window_start > now() - make_interval(secs => $3::int)`,
    [arrayLiteral(keys.map((k) => k.key)), arrayLiteral(keys.map((k) => k.limit)), String(auth.failureWindowSeconds)],
  );
  return Math.max(0, Number(row?.wait ?? 0));
}

let lastSweep = 0;

/**
 * Counts one failure against each key and, in the same statement, reads the counts back: the answer
 * is the seconds to wait when this failure went past a limit (the caller answers 429, not 401), else 0.
 * Recording and checking in one statement is what makes the limit exact under parallel requests and
 * many instances: PostgreSQL serialises the upserts of one key, so exactly `limit` failures see a count
 * within it. Keys are written in one order (sorted) so that two requests never wait on each other's rows.
 */
export async function recordFailure(db: Queryable, auth: AuthConfig, keys: ThrottleKey[]): Promise<number> {
  const window = String(auth.failureWindowSeconds);
  const rows = await db.query(
    `INSERT INTO auth_failures AS f (key, failures, window_start, email_key)
       SELECT k, 1, now(), nullif(e, '') FROM unnest($1::text[], $3::text[]) AS u(k, e) ORDER BY k
     ON CONFLICT (key) DO UPDATE SET
       failures = CASE WHEN f.window_start <= now() - make_interval(secs => $2::int) THEN 1 ELSE f.failures + 1 END,
       window_start = CASE WHEN f.window_start <= now() - make_interval(secs => $2::int) THEN now() ELSE f.window_start END
     RETURNING f.key, f.failures,
       ceil(extract(epoch FROM f.window_start + make_interval(secs => $2::int) - now()))::int AS wait`,
    [arrayLiteral(keys.map((k) => k.key)), window, arrayLiteral(keys.map((k) => k.emailKey ?? '""'))],
  );
  const limits = new Map(keys.map((k) => [k.key, k.limit]));
  let wait = 0;
  for (const r of rows) {
    if (Number(r.failures) > (limits.get(r.key as string) ?? Infinity)) wait = Math.max(wait, Number(r.wait), 1);
  }
  // Ended windows are kept for nothing: sweep them, at most once a minute per process.
  if (Date.now() - lastSweep > 60_000) {
    lastSweep = Date.now();
    await db.query('DELETE FROM auth_failures WHERE window_start <= now() - make_interval(secs => $1::int)', [window]);
  }
  return wait;
}

/** Forgets the failures of keys (the e-mail's, after a successful sign-in). */
export async function clearFailures(db: Queryable, keys: ThrottleKey[]): Promise<void> {
  await db.query('DELETE FROM auth_failures WHERE key = ANY($1::text[])', [arrayLiteral(keys.map((k) => k.key))]);
}

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;

/**
 * A wait in words for people: "30 seconds", "1 minute", "15 minutes", "2 hours and 5 minutes". Past a
 * minute it is rounded up to whole minutes (898 seconds is "15 minutes"): never shorter than the real wait.
 */
export function waitInWords(seconds: number): string {
  const s = Math.max(1, Math.ceil(seconds));
  if (s < 60) return plural(s, 'second');
  const minutes = Math.ceil(s / 60);
  if (minutes < 60) return plural(minutes, 'minute');
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? plural(hours, 'hour') : `${plural(hours, 'hour')} and ${plural(rest, 'minute')}`;
}
