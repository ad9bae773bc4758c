import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { AuthConfig } from '../../core/config';
import { purposeKey } from '../../core/secrets';

/**
 * The secret of a token just created, carried from "Create Token" (a POST) to the page it redirects
 * to (a GET), so that reloading that page cannot create a second token (POST-redirect-GET) while the
 * secret still never appears in a URL, a log or the server's memory.
 *
 * It rides in a cookie for that one hop: encrypted and authenticated (AES-256-GCM under a key derived
 * from NEXTAUTH_SECRET, so any instance can read it), bound to the user, valid two minutes, scoped to
 * /settings, HttpOnly and SameSite=Strict. The page that shows it deletes it in the same answer, so a
 * reload shows the list without the secret. A copy of the cookie taken in those two minutes would
 * show the secret again: whoever can read this browser's cookies holds its session anyway.
 */
export const NEW_TOKEN_COOKIE = 'platform_new_token';
const PATH = '/settings';
const LIFETIME_SECONDS = 120;

interface Sealed {
  sub: string;
  name: string;
  secret: string;
  exp: number;
}

const key = (auth: AuthConfig) => purposeKey(auth.sessionSecret, 'new token cookie');

/** Sets the cookie carrying the new token's secret for `userId`. */
export function sealNewToken(c: Context, auth: AuthConfig, userId: string, token: { name: string; secret: string }) {
  const payload: Sealed = { sub: userId, ...token, exp: Math.floor(Date.now() / 1000) + LIFETIME_SECONDS };
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key(auth), iv);
  const data = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
  const value = [iv, cipher.getAuthTag(), data].map((b) => b.toString('base64url')).join('.');
  setCookie(c, NEW_TOKEN_COOKIE, value, {
    path: PATH,
    httpOnly: true,
    sameSite: 'Strict',
    secure: auth.baseUrl.startsWith('https://'),
    maxAge: LIFETIME_SECONDS,
  });
}

/** The new token's name and secret, once: the cookie is deleted with this answer whatever it held. */
export function takeNewToken(
  c: Context,
  auth: AuthConfig,
  userId: string,
): { name: string; secret: string } | undefined {
  const value = getCookie(c, NEW_TOKEN_COOKIE);
  if (value === undefined) return undefined;
  deleteCookie(c, NEW_TOKEN_COOKIE, { path: PATH, secure: auth.baseUrl.startsWith('https://') });
  const [iv, tag, data] = value.split('.').map((p) => Buffer.from(p, 'base64url'));
  if (!iv || !tag || !data || iv.length !== 12 || tag.length !== 16) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key(auth), iv);
    decipher.setAuthTag(tag);
    const p = JSON.parse(Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8')) as Sealed;
    if (p.sub !== userId || typeof p.exp !== 'number' || p.exp <= Date.now() / 1000) return undefined;
    return typeof p.name === 'string' && typeof p.secret === 'string' ? { name: p.name, secret: p.secret } : undefined;
  } catch {
    return undefined;
  }
}
