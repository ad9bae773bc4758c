import { createPublicKey, type KeyObject } from 'node:crypto';
import * as fs from 'node:fs';
import { jwtVerify } from 'jose';
import type { SamlConfig } from '../../core/config';
import { isUuid } from '../../core/uuid';

/**
 * The on-premise license: a JWT signed by the vendor (RS256, ES256 or EdDSA) in the file LICENSE_FILE,
 * checked with the vendor's public key. Its claim `tenant_id` names the tenant that users created at
 * their first SAML login join; `exp`, when present, is honoured.
 */
export type License =
  { ok: true; tenantId: string; licensee?: string; expiresAt?: string } | { ok: false; problem: string };

export async function readLicense(saml: Pick<SamlConfig, 'licenseFile' | 'licensePublicKey'>): Promise<License> {
  if (!saml.licenseFile)
    return {
      ok: false,
      problem: 'no license: set LICENSE_FILE (and LICENSE_PUBLIC_KEY) to name the tenant of new SAML users',
    };
  if (!saml.licensePublicKey)
    return {
      ok: false,
      problem: 'LICENSE_PUBLIC_KEY (or LICENSE_PUBLIC_KEY_FILE) is not set: the license cannot be checked',
    };
  let token: string;
  try {
    token = fs.readFileSync(saml.licenseFile, 'utf8').trim();
  } catch (err) {
    return {
      ok: false,
      problem: `the license file cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    };
  }
  let key: KeyObject;
  try {
    key = createPublicKey(saml.licensePublicKey);
  } catch {
    return { ok: false, problem: 'LICENSE_PUBLIC_KEY is not a readable public key (PEM)' };
  }
  try {
    const { payload } = await jwtVerify(token, key, { algorithms: ['RS256', 'ES256', 'EdDSA'] });
    const tenantId = payload.tenant_id;
    if (typeof tenantId !== 'string' || !isUuid(tenantId))
      return { ok: false, problem: 'the license names no tenant (claim tenant_id)' };
    return {
      ok: true,
      tenantId,
      licensee: typeof payload.sub === 'string' ? payload.sub : undefined,
      expiresAt: payload.exp ? new Date(payload.exp * 1000).toISOString() : undefined,
    };
  } catch (err) {
    const code = (err as { code?: string }).code;
    return {
      ok: false,
      problem:
        code === 'ERR_JWT_EXPIRED'
          ? 'the license has expired'
          : 'the license is not valid (its signature does not match LICENSE_PUBLIC_KEY)',
    };
  }
}
