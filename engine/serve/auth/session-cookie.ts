import { createHash, randomBytes } from 'node:crypto';
import { parse } from 'hono/utils/cookie';
import type { AuthConfig } from '../../core/config';
import type { Queryable } from '../../core/db/database';
import { purposeKey } from '../../core/secrets';
import { openSignedValue, signValue } from './signed-value';
import { loadUserSession, type UserSession } from './users';

/**
 * The browser session: a cookie holding the user, tenant, role and expiry, signed with HMAC-SHA256
 * under a key derived from NEXTAUTH_SECRET, so any instance that shares the secret accepts it.
 * Value: base64url(JSON payload) "." base64url(signature) (signed-value.ts). HttpOnly, SameSite=Lax,
 * Path=/, and Secure when NEXTAUTH_URL is https.
 *
 * Each cookie carries a random session id (`sid`) and its issue time in milliseconds (`ims`), so that
 * a session can end before the cookie expires (sql/0030_sessions.sql): sign-out records the id's hash
 * in ended_sessions, and a user's sessions_valid_after ends every cookie issued before it.
 */
export const SESSION_COOKIE = 'platform_session';

type WithAuth = { auth: AuthConfig };

interface Payload {
  v: 1;
  sub: string;
  tid: string;
  role: string;
  email: string;
  name: string;
  iat: number;
  exp: number;
  sid: string;
  ims: number;
}

/** A cookie's session with what identifies it server-side. */
export interface OpenedSession {
  session: UserSession;
  /** SHA-256 of the session id, hex: what ended_sessions keeps. */
  idHash: string;
  /** Issue time, milliseconds since the epoch. */
  issuedMs: number;
  /** Expiry, seconds since the epoch. */
  exp: number;
}

export const sessionIdHash = (sid: string) => createHash('sha256').update(sid).digest('hex');

const sessionKey = (config: WithAuth) => purposeKey(config.auth.sessionSecret, 'session cookie');
// Written here rather than with Hono's serialize: the Set-Cookie text is part of the contract (tests
// pin it attribute by attribute) and Hono's puts Max-Age first and Secure before SameSite.
const attributes = (config: WithAuth, maxAge: number) =>
  `Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${config.auth.baseUrl.startsWith('https:') ? '; Secure' : ''}`;

/**
 * The cookie's value for a session that starts now (exported for tests and for the pages).
 * `notBeforeMs`: issue it no earlier than this (a moment the database set as the user's
 * sessions_valid_after, whose clock may run ahead of this one's).
 */
export function sessionCookieValue(
  config: WithAuth,
  s: UserSession,
  now = Math.floor(Date.now() / 1000),
  notBeforeMs = 0,
): string {
  const payload: Payload = {
    sid: randomBytes(24).toString('base64url'),
    ims: Math.max(Date.now(), now * 1000, Math.ceil(notBeforeMs)),
    v: 1,
    sub: s.userId,
    tid: s.tenantId,
    role: s.role,
    email: s.email,
    name: s.displayName,
    iat: now,
    exp: now + config.auth.sessionMaxAgeSeconds,
  };
  return signValue(sessionKey(config), payload);
}

/** A full Set-Cookie value that signs `s` in for SESSION_MAX_AGE_SECONDS (issued no earlier than `notBeforeMs`). */
export function sessionCookie(config: WithAuth, s: UserSession, notBeforeMs = 0): string {
  const value = sessionCookieValue(config, s, undefined, notBeforeMs);
  return `${SESSION_COOKIE}=${value}; ${attributes(config, config.auth.sessionMaxAgeSeconds)}`;
}

/** A Set-Cookie value that signs out. */
export function clearSessionCookie(config: WithAuth): string {
  return `${SESSION_COOKIE}=; ${attributes(config, 0)}`;
}

/**
 * The raw value of the session cookie in a Cookie header, if any. From the header, not a Hono Context:
 * the GraphQL route has Node's headers only (serve/http/read-request.ts).
 */
export function sessionCookieIn(cookieHeader: string | undefined): string | undefined {
  return cookieHeader ? parse(cookieHeader, SESSION_COOKIE)[SESSION_COOKIE] : undefined;
}

/** The session a cookie value carries when its signature is right and it has not expired. */
export function openSessionCookie(config: WithAuth, value: string): OpenedSession | undefined {
  const p = openSignedValue(sessionKey(config), value) as Payload | undefined;
  if (p?.v !== 1 || typeof p.exp !== 'number' || p.exp <= Date.now() / 1000) return undefined;
  if (![p.sub, p.tid, p.role, p.email, p.name, p.sid].every((x) => typeof x === 'string')) return undefined;
  if (typeof p.ims !== 'number') return undefined;
  return {
    session: { userId: p.sub, tenantId: p.tid, role: p.role, email: p.email, displayName: p.name },
    idHash: sessionIdHash(p.sid),
    issuedMs: p.ims,
    exp: p.exp,
  };
}

export const decodeSessionCookie = (config: WithAuth, value: string): UserSession | undefined =>
  openSessionCookie(config, value)?.session;

/** Whether a cookie's session is still open: not signed out, and issued after the user's last cut-off. */
export async function sessionOpen(db: Queryable, opened: OpenedSession): Promise<boolean> {
  const [row] = await db.query(
    `SELECT (extract(epoch FROM u.sessions_valid_after) * 1000)::float8 AS valid_after,
       EXISTS (SELECT 1 FROM ended_sessions e WHERE e.id_hash = $2::text) AS ended
     FROM users u WHERE u.id = $1::uuid`,
    [opened.session.userId, opened.idHash],
  );
  if (!row || row.ended === true || row.ended === 't') return false;
  return row.valid_after === null || opened.issuedMs >= Number(row.valid_after);
}

/**
 * Signs a cookie's session out on every instance: its id's hash is recorded until it would expire.
 * Rows whose cookies have expired anyway are pruned here, so the table stays the size of 8 hours of sign-outs.
 */
export async function endSession(db: Queryable, opened: OpenedSession): Promise<void> {
  await db.query('DELETE FROM ended_sessions WHERE expires_at < now()');
  await db.query(
    `INSERT INTO ended_sessions (id_hash, user_id, expires_at) VALUES ($1::text, $2::uuid, to_timestamp($3::float8))
     ON CONFLICT (id_hash) DO NOTHING`,
    [opened.idHash, opened.session.userId, String(opened.exp)],
  );
}

/** Ends every session of the user (sign out everywhere); password and status changes do it by trigger. */
export async function endAllSessions(db: Queryable, userId: string): Promise<void> {
  await db.query('UPDATE users SET sessions_valid_after = clock_timestamp() WHERE id = $1::uuid', [userId]);
}

/**
 * The signed-in user of a request's Cookie header: signature and expiry checked. With `db`, the user
 * must also still be active, the session not ended, and the user a member of the tenant: the answer is then the session as it stands in
 * the database (the role may have changed since sign-in). Without `db`, the cookie alone decides.
 */
export async function readSessionCookie(
  config: WithAuth,
  cookieHeader: string | undefined,
  db?: Queryable,
): Promise<UserSession | undefined> {
  const value = sessionCookieIn(cookieHeader);
  const opened = value ? openSessionCookie(config, value) : undefined;
  if (!opened || !db) return opened?.session;
  if (!(await sessionOpen(db, opened))) return undefined;
  return (await loadUserSession(db, opened.session.userId, opened.session.tenantId)) ?? undefined;
}
