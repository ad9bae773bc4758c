import { createHash, randomBytes } from 'node:crypto';
import type * as Nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import type { Queryable } from '../../core/db/database';
import { onFirstUse } from '../../core/on-first-use';
import { SignInRefused } from '../auth/provision-user';
import { normaliseEmail } from '../auth/users';

/**
 * Sign-in by e-mail link: a 256-bit random token, sent in a link by SMTP (nodemailer) and stored only
 * as its SHA-256 hash (sql/0034_email_sign_in.sql), valid 10 minutes and usable once. Requests are
 * limited per e-mail and per client address, counted from the same table.
 */
export const LINK_MINUTES = 10;
/** Links one e-mail may be sent, and one client address may ask for, within RATE_WINDOW_MINUTES. */
export const MAX_LINKS_PER_EMAIL = 5;
export const MAX_LINKS_PER_ADDRESS = 20;
export const RATE_WINDOW_MINUTES = 15;

const hash = (token: string) => createHash('sha256').update(token).digest('hex');
export const EMAIL_SHAPE = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/** nodemailer, loaded when the first link is sent. */
const nodemailer = onFirstUse<typeof Nodemailer>('nodemailer');

/** One transport per SMTP URL: nodemailer keeps no connection between messages unless pooled. */
const transports = new Map<string, Transporter>();
const transportOf = (server: string) => {
  let t = transports.get(server);
  if (!t) {
    t = nodemailer().createTransport(server);
    transports.set(server, t);
  }
  return t;
};

/**
 * A new link for `email`, unless the rate limit says no (then: how many seconds to wait). Expired
 * tokens older than a day are pruned on the way.
 */
export async function newLinkToken(
  db: Queryable,
  email: string,
  address: string,
): Promise<{ token: string } | { waitSeconds: number }> {
  await db.query(`DELETE FROM email_sign_in_tokens WHERE expires_at < now() - interval '1 day'`);
  const [counts] = await db.query(
    `SELECT count(*) FILTER (WHERE email = $1::text)::int AS per_email,
            count(*) FILTER (WHERE requested_by = $2::text)::int AS per_address
       FROM email_sign_in_tokens
      WHERE created_at > now() - make_interval(mins => $3::int) AND (email = $1::text OR requested_by = $2::text)`,
    [email, address, String(RATE_WINDOW_MINUTES)],
  );
  if (Number(counts.per_email) >= MAX_LINKS_PER_EMAIL || Number(counts.per_address) >= MAX_LINKS_PER_ADDRESS)
    return { waitSeconds: RATE_WINDOW_MINUTES * 60 };
  const token = randomBytes(32).toString('base64url');
  await db.query(
    `INSERT INTO email_sign_in_tokens (token_hash, email, requested_by, expires_at)
     VALUES ($1::text, $2::text, $3::text, now() + make_interval(mins => $4::int))`,
    [hash(token), email, address, String(LINK_MINUTES)],
  );
  return { token };
}

/** Sends the link. The message names no account: it goes the same way whether or not one exists. */
export async function sendLink(email: { server: string; from: string }, to: string, url: string): Promise<void> {
  await transportOf(email.server).sendMail({
    from: email.from,
    to,
    subject: 'Your sign-in link',
    text: `Sign in with this link (valid ${LINK_MINUTES} minutes, once):\n\n${url}\n\nIf you did not ask for it, ignore this message.\n`,
  });
}

/** The e-mail of a link's token, which is used up from now on; refused when unknown, used or expired. */
export async function useLinkToken(db: Queryable, token: string): Promise<string> {
  const h = hash(token);
  const rows = await db.query(
    `UPDATE email_sign_in_tokens SET used_at = now()
      WHERE token_hash = $1::text AND used_at IS NULL AND expires_at > now() RETURNING email`,
    [h],
  );
  if (rows[0]) return normaliseEmail(String(rows[0].email));
  const [known] = await db.query(
    `SELECT used_at IS NOT NULL AS used FROM email_sign_in_tokens WHERE token_hash = $1::text`,
    [h],
  );
  if (!known) throw new SignInRefused('This sign-in link is not valid. Ask for a new one.');
  if (known.used === true || known.used === 't')
    throw new SignInRefused('This sign-in link has already been used. Ask for a new one.');
  throw new SignInRefused(`This sign-in link has expired (links last ${LINK_MINUTES} minutes). Ask for a new one.`);
}
