/**
 * Readers of environment variables: each takes the variable's name, refuses a malformed value with an
 * error naming the variable (never repeating a value that may be secret), and returns the default when
 * it is unset or empty. The engine's configuration and the actions' own settings both use them.
 */
export type Env = Readonly<Record<string, string | undefined>>;

/** Secrets that sign things must be long enough that guessing them is hopeless. */
const MIN_SECRET_LENGTH = 32;

export function int(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return n;
}

export function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new Error(`${name} must be true or false, got "${raw}"`);
}

export function secret(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (raw.length < MIN_SECRET_LENGTH)
    throw new Error(`${name} must be at least ${MIN_SECRET_LENGTH} characters long (e.g. openssl rand -base64 32)`);
  return raw;
}

export function positive(env: Env, name: string, fallback: number): number {
  const n = int(env, name, fallback);
  if (n === 0) throw new Error(`${name} must be a positive integer, got "${env[name]}"`);
  return n;
}

export function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '') return fallback;
  if (!(values as readonly string[]).includes(raw))
    throw new Error(`${name} must be one of ${values.join(', ')}, got "${env[name]}"`);
  return raw as T;
}

/** An optional http(s) base URL, without its trailing slash. */
export function httpUrl(env: Env, name: string): string | undefined {
  const raw = (env[name] ?? '').trim();
  if (!raw) return undefined;
  let ok = false;
  try {
    const u = new URL(raw);
    ok = u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    ok = false;
  }
  // The value is not repeated: such URLs may carry credentials (https://user:password@host).
  if (!ok) throw new Error(`${name} must be an http(s) URL such as https://host:port/path`);
  return raw.replace(/\/+$/, '');
}
