import { randomBytes, scrypt, type ScryptOptions } from 'node:crypto';
import { sameSecret } from '../../core/secrets';

/**
 * Built-in credentials: passwords are stored as scrypt hashes, with the cost parameters and the salt
 * in the stored string (`scrypt$N$r$p$salt$hash`, salt and hash in base64url), so that the cost can
 * be raised later without invalidating the hashes already stored.
 */
const COST = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
/** Longest password accepted: scrypt is costly per byte of input only slightly, but bound it anyway. */
export const MAX_PASSWORD_LENGTH = 1024;
export const MIN_PASSWORD_LENGTH = 8;

/**
 * What is wrong with a new password, in words, or undefined when it will do: the one rule of every
 * way a password is set (the admin command, the Profile page).
 */
export function passwordProblem(password: string | undefined): string | undefined {
  if (typeof password !== 'string' || password.length === 0) return 'a password is required';
  if (password.length < MIN_PASSWORD_LENGTH)
    return `the password must be at least ${MIN_PASSWORD_LENGTH} characters long`;
  if (password.length > MAX_PASSWORD_LENGTH)
    return `the password must be at most ${MAX_PASSWORD_LENGTH} characters long`;
  return undefined;
}

function derive(password: string, salt: Buffer, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  if (typeof password !== 'string' || password.length === 0) throw new Error('the password must not be empty');
  if (password.length > MAX_PASSWORD_LENGTH)
    throw new Error(`the password must be at most ${MAX_PASSWORD_LENGTH} characters long`);
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `password` matches `stored`; false (never an error) for a stored value it cannot read. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (typeof password !== 'string' || password.length > MAX_PASSWORD_LENGTH || typeof stored !== 'string') return false;
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  // Bounds keep a tampered row from making one sign-in take minutes or gigabytes.
  if (!Number.isInteger(N) || N < 2 ** 10 || N > 2 ** 20 || (N & (N - 1)) !== 0) return false;
  if (!Number.isInteger(r) || r < 1 || r > 32 || !Number.isInteger(p) || p < 1 || p > 16) return false;
  const salt = Buffer.from(parts[4], 'base64url');
  const expected = Buffer.from(parts[5], 'base64url');
  if (salt.length < 8 || expected.length !== KEY_LENGTH) return false;
  const key = await derive(password, salt, { N, r, p });
  return sameSecret(key, expected);
}

/** A hash no password matches, to spend the same time on an unknown e-mail as on a known one. */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('base64url'));
  return decoy;
}
