import { X509Certificate } from 'node:crypto';

/** The health endpoint's `certificate` object. */
export interface CertificateHealth {
  expired: boolean;
  expiringSoon: boolean;
  /** ISO 8601; null when there is no readable certificate. */
  expiresAt: string | null;
  /** Whole days left (negative once expired); null when there is no readable certificate. */
  daysUntilExpiry: number | null;
}

/** The certificate warning window of the spec's Limits: 30 days before expiry. */
export const WARNING_DAYS = 30;
const DAY_MS = 24 * 3600 * 1000;

export type CertificateCheck =
  { ok: true; health: CertificateHealth; status: 'healthy' | 'warning' | 'error' } | { ok: false; problem: string };

/** Reads a PEM certificate's validity at `now`: healthy, warning (within 30 days of expiry) or error (expired). */
export function checkCertificate(pem: string, now: Date = new Date()): CertificateCheck {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pem);
  } catch (err) {
    return { ok: false, problem: `SAML_CERT is not a readable X.509 certificate (${(err as Error).message})` };
  }
  const notAfter = new Date(cert.validTo);
  const left = notAfter.getTime() - now.getTime();
  const expired = left <= 0;
  const expiringSoon = !expired && left <= WARNING_DAYS * DAY_MS;
  return {
    ok: true,
    status: expired ? 'error' : expiringSoon ? 'warning' : 'healthy',
    health: { expired, expiringSoon, expiresAt: notAfter.toISOString(), daysUntilExpiry: Math.floor(left / DAY_MS) },
  };
}
