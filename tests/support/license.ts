import { generateKeyPairSync } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SignJWT } from 'jose';

/**
 * An on-premise license made in the test: a vendor key pair of its own (Ed25519), a license JWT signed
 * with it in a temporary file, and the environment that points the engine at both.
 */
export async function makeLicense(
  claims: Record<string, unknown>,
  opts: { expiresIn?: string; signWithOtherKey?: boolean } = {},
): Promise<{ env: Record<string, string>; remove(): void }> {
  const vendor = generateKeyPairSync('ed25519');
  const signer = opts.signWithOtherKey ? generateKeyPairSync('ed25519').privateKey : vendor.privateKey;
  let jwt = new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA' }).setIssuedAt().setSubject('Test Licensee');
  if (opts.expiresIn) jwt = jwt.setExpirationTime(opts.expiresIn);
  const token = await jwt.sign(signer);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'license-'));
  const file = path.join(dir, 'license.jwt');
  fs.writeFileSync(file, token);
  return {
    env: {
      DEPLOYMENT_MODE: 'onprem',
      LICENSE_FILE: file,
      LICENSE_PUBLIC_KEY: vendor.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    },
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
