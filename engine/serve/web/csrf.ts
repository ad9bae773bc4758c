import { randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Double-submit CSRF protection for the server-rendered forms: a random token lives in a
 * SameSite=Strict cookie and in a hidden field of every form; a POST whose two copies differ is
 * refused. It needs no server state, so any instance can check a form that another rendered.
 */
export const CSRF_COOKIE = 'platform_csrf';

export function newCsrfToken(): string {
  return randomBytes(24).toString('base64url');
}

export function csrfCookie(token: string, secure: boolean): string {
  return `${CSRF_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

export function cookieValue(cookieHeader: string | undefined, name: string): string | undefined {
  for (const part of (cookieHeader ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}

export function csrfValid(cookieHeader: string | undefined, field: unknown): boolean {
  const cookie = cookieValue(cookieHeader, CSRF_COOKIE);
  if (!cookie || typeof field !== 'string') return false;
  const a = Buffer.from(cookie);
  const b = Buffer.from(field);
  return a.length === b.length && timingSafeEqual(a, b);
}
