import { createHmac } from 'node:crypto';
import { sameSecret } from '../../core/secrets';

/**
 * A JSON payload signed with HMAC-SHA256 for a cookie: base64url(JSON) "." base64url(signature), under
 * a key derived for the cookie's purpose (core/secrets.ts purposeKey). The session cookie and the SAML
 * login state are both written and read here; the reader checks the payload's own expiry, which the
 * signature covers (a cookie's Max-Age is only a request to the browser).
 *
 * Why not Hono's signed cookies (hono/cookie setSignedCookie, hono/utils/cookie parseSigned):
 * - The format. Hono signs a string and appends a standard-base64 signature ("+", "/", "="), then
 *   URL-encodes the whole value. Every cookie in browsers today, and those that instances still on the
 *   previous version mint during a rolling deploy, is in the format above: with Hono's they would all
 *   be refused, signing everyone out.
 * - The check is synchronous and cheap. The GraphQL route reads the session cookie on every request
 *   from Node's headers; Hono's goes through WebCrypto, a key import and a promise per cookie.
 * Reading the cookie out of the Cookie header and writing Set-Cookie are Hono's (hono/utils/cookie).
 */
const hmac = (key: Uint8Array, data: string) => createHmac('sha256', key).update(data).digest();

/** The signed value of `payload`. */
export function signValue(key: Uint8Array, payload: object): string {
  const data = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${data}.${hmac(key, data).toString('base64url')}`;
}

/**
 * The payload of a signed value when its signature is right under `key`; undefined otherwise. The
 * caller checks the payload's shape and expiry: nothing here knows them.
 */
export function openSignedValue(key: Uint8Array, value: string): unknown {
  const dot = value.indexOf('.');
  if (dot <= 0) return undefined;
  const data = value.slice(0, dot);
  if (!sameSecret(Buffer.from(value.slice(dot + 1), 'base64url'), hmac(key, data))) return undefined;
  try {
    return JSON.parse(Buffer.from(data, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}
