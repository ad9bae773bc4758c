import { randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { sameSecret } from '../../core/secrets';

/**
 * Double-submit CSRF protection for the server-rendered forms: a random token lives in a
 * SameSite=Strict cookie and in a hidden field of every form; a POST whose two copies differ is
 * refused. It needs no server state, so any instance can check a form that another rendered.
 *
 * Hono's csrf middleware (hono/csrf) is not used in its place: it checks where a request comes from
 * (the Origin or Sec-Fetch-Site header), which is another protection with other answers:
 * - a form post that carries neither header (older browsers, proxies that strip them, scripts) is
 *   refused, where a token in the form works from any client;
 * - the Origin is compared with the URL this server sees, which behind a TLS-terminating load
 *   balancer is http://<internal address> rather than NEXTAUTH_URL;
 * - its refusal is a bare "Forbidden", not the advice to reload the form;
 * - the SAML ACS takes a cross-site POST by design and would need to be let through.
 */
export const CSRF_COOKIE = 'platform_csrf';

/** A new token, set as the browser's CSRF cookie with the answer; the form's copy is the return value. */
export function issueCsrfToken(c: Context, secure: boolean): string {
  const token = randomBytes(24).toString('base64url');
  setCookie(c, CSRF_COOKIE, token, { path: '/', httpOnly: true, sameSite: 'Strict', secure });
  return token;
}

/** The token for a page's forms: the browser's existing one, or a new one. */
export const csrfToken = (c: Context, secure: boolean): string =>
  getCookie(c, CSRF_COOKIE) || issueCsrfToken(c, secure);

/** Whether a posted form's token is the one in the browser's CSRF cookie. */
export function csrfValid(c: Context, field: unknown): boolean {
  const cookie = getCookie(c, CSRF_COOKIE);
  return !!cookie && typeof field === 'string' && sameSecret(field, cookie);
}
