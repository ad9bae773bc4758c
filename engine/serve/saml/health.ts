import type { EngineConfig } from '../../core/config';
import { checkCertificate, type CertificateHealth } from './certificate';
import type { License } from './license';

export interface SamlHealth {
  enabled: boolean;
  status: 'healthy' | 'warning' | 'error';
  certificate: CertificateHealth;
  config: { entryPoint: string | null; issuer: string | null; callbackUrl: string };
  messages: string[];
}

type HealthConfig = Pick<EngineConfig, 'saml' | 'edition' | 'deploymentMode'>;

/** Whether SAML sign-in is on: SAML_ENABLED=true in an edition that has it. */
export const samlAvailable = (c: Pick<EngineConfig, 'saml' | 'edition'>) => c.saml.enabled && c.edition !== 'community';

const RANK = { healthy: 0, warning: 1, error: 2 } as const;

/**
 * GET /api/auth/saml/health. status follows the spec's certificate table (healthy; warning within 30
 * days of expiry; error once expired) and is also error when SAML is not configured or its
 * certificate cannot be read; a license problem on-premise (new users cannot be created) is a warning.
 */
export function samlHealth(c: HealthConfig, license: License | undefined, now: Date = new Date()): SamlHealth {
  const saml = c.saml;
  const messages: string[] = [];
  let status: SamlHealth['status'] = 'healthy';
  const worse = (s: SamlHealth['status']) => {
    if (RANK[s] > RANK[status]) status = s;
  };
  if (c.edition === 'community')
    messages.push(
      'SAML single sign-on is not available in the Community edition (it is in the Enterprise and Cloud editions: EDITION=enterprise or cloud)',
    );
  else if (!saml.enabled)
    messages.push('SAML is disabled: set SAML_ENABLED=true to show the SSO button and accept SAML sign-ins');
  if (saml.missing.length > 0) {
    messages.push(
      `SAML not configured: ${saml.missing.join(', ')} ${saml.missing.length === 1 ? 'is' : 'are'} missing`,
    );
    worse('error');
  }
  let certificate: CertificateHealth = { expired: false, expiringSoon: false, expiresAt: null, daysUntilExpiry: null };
  if (saml.cert) {
    const checked = checkCertificate(saml.cert, now);
    if (!checked.ok) {
      messages.push(checked.problem);
      worse('error');
    } else {
      certificate = checked.health;
      worse(checked.status);
      if (certificate.expired)
        messages.push(
          `the IdP certificate expired on ${certificate.expiresAt}: SAML login fails until SAML_CERT holds the IdP's new certificate`,
        );
      else if (certificate.expiringSoon)
        messages.push(
          `the IdP certificate expires in ${certificate.daysUntilExpiry} days (${certificate.expiresAt}): get the IdP's new certificate into SAML_CERT before then`,
        );
    }
  }
  messages.push(...saml.problems);
  if (saml.problems.length > 0) worse('warning');
  if (c.deploymentMode === 'onprem' && c.edition !== 'community' && license && !license.ok) {
    messages.push(`license: ${license.problem}`);
    worse('warning');
  }
  return {
    enabled: samlAvailable(c),
    status,
    certificate,
    config: { entryPoint: saml.entryPoint ?? null, issuer: saml.issuer ?? null, callbackUrl: saml.callbackUrl },
    messages,
  };
}
