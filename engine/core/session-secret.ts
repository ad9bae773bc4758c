import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AuthConfig } from './config';
import type { Logger } from './logger';

/**
 * The embedded default's session secret (the NEXTAUTH_SECRET stand-in), kept in its data folder so
 * that a restart keeps sign-in sessions and JWTs. Readable by the owner only (0600): whoever reads it
 * can sign sessions. With PostgreSQL there is no folder of the engine's own, and instances must share
 * one secret: NEXTAUTH_SECRET is to be set there.
 */
export const SESSION_SECRET_FILE = 'session-secret';

/** The secret in the folder, made (32 random bytes, base64url) and written when there is none yet. */
function readOrCreate(file: string): { secret: string; created: boolean } {
  try {
    const secret = fs.readFileSync(file, 'utf8').trim();
    if (secret.length >= 32) return { secret, created: false };
    throw new Error(`${file} holds no usable secret (fewer than 32 characters): delete it to have a new one made`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const secret = randomBytes(32).toString('base64url');
  // `wx`: never over another process's file; the mode applies at creation, before a byte is written.
  fs.writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  return { secret, created: true };
}

/**
 * When NEXTAUTH_SECRET is unset and the database is the embedded one in a folder, the secret becomes
 * the folder's (read, or made once). The configuration is changed in place: everything that signs or
 * verifies reads `auth.sessionSecret` from it. Told in the log, the file's name but never the value.
 */
export function keepSessionSecret(auth: AuthConfig, db: { databaseUrl?: string; dataDir: string }, log: Logger): void {
  if (!auth.sessionSecretGenerated) return;
  if (db.databaseUrl || db.dataDir.startsWith('memory://')) {
    log({
      level: 'warn',
      msg: 'NEXTAUTH_SECRET is not set: using a random one, so sign-in sessions and JWTs will not survive a restart or work across instances',
    });
    return;
  }
  const file = path.join(db.dataDir, SESSION_SECRET_FILE);
  const kept = readOrCreate(file);
  // A file made by hand (or copied) may be readable by others: the secret is the owner's alone.
  if (process.platform !== 'win32' && (fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
  auth.sessionSecret = kept.secret;
  auth.sessionSecretGenerated = false;
  log({
    level: 'info',
    msg: `NEXTAUTH_SECRET is not set: ${kept.created ? 'generated a session secret and saved it' : 'using the session secret saved'} in ${file} (mode 0600), so sessions and JWTs survive restarts; set NEXTAUTH_SECRET to use your own`,
  });
}
