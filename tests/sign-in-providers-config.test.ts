import { loadConfig } from '../engine/core/config';
import { providerNamed, providersConfig } from '../engine/core/sign-in-providers';

/**
 * Each provider is a configuration of the same OpenID Connect code: its issuer (and discovery URL)
 * derived from its variables, its redirect URI from NEXTAUTH_URL; half-set variables leave it off
 * and say which is missing.
 */
const BASE = 'https://platform.example.com';
const one = (env: Record<string, string>) => {
  const c = providersConfig(env, BASE);
  expect(c.problems).toEqual([]);
  expect(c.oauth).toHaveLength(1);
  return c.oauth[0];
};

test('Google, Azure AD, Azure AD B2C, Auth0, OneLogin and the generic provider: issuers and redirect URIs', () => {
  expect(one({ GOOGLE_CLIENT_ID: 'g', GOOGLE_CLIENT_SECRET: 's' })).toMatchObject({
    id: 'google',
    name: 'Google',
    issuer: 'https://accounts.google.com',
    clientId: 'g',
    clientSecret: 's',
    redirectUri: `${BASE}/api/auth/callback/google`,
    scope: 'openid email profile',
  });
  expect(
    one({
      AZURE_AD_CLIENT_ID: 'a',
      AZURE_AD_CLIENT_SECRET: 's',
      AZURE_AD_TENANT_ID: '9188040d-6c67-4c5b-b112-36a304b66dad',
    }),
  ).toMatchObject({
    id: 'azure-ad',
    issuer: 'https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0',
    redirectUri: `${BASE}/api/auth/callback/azure-ad`,
  });
  const b2c = one({
    AZURE_AD_B2C_TENANT_NAME: 'contoso',
    AZURE_AD_B2C_CLIENT_ID: 'b',
    AZURE_AD_B2C_CLIENT_SECRET: 's',
    AZURE_AD_B2C_PRIMARY_USER_FLOW: 'B2C_1_signin',
  });
  expect(b2c).toMatchObject({
    id: 'azure-ad-b2c',
    clientId: 'b',
    discoveryUrl:
      'https://contoso.b2clogin.com/contoso.onmicrosoft.com/B2C_1_signin/v2.0/.well-known/openid-configuration',
    redirectUri: `${BASE}/api/auth/callback/azure-ad-b2c`,
  });
  expect(one({ AUTH0_CLIENT_ID: 'z', AUTH0_CLIENT_SECRET: 's', AUTH0_ISSUER: 'example.eu.auth0.com' })).toMatchObject({
    id: 'auth0',
    issuer: 'https://example.eu.auth0.com',
  });
  expect(
    one({
      ONELOGIN_CLIENT_ID: 'o',
      ONELOGIN_CLIENT_SECRET: 's',
      ONELOGIN_ISSUER: 'https://example.onelogin.com/oidc/2/',
    }),
  ).toMatchObject({ id: 'onelogin', name: 'OneLogin', issuer: 'https://example.onelogin.com/oidc/2' });
  expect(
    one({
      OIDC_ISSUER: 'https://id.example.com/realms/x',
      OIDC_CLIENT_ID: 'c',
      OIDC_CLIENT_SECRET: 's',
      OIDC_NAME: 'Keycloak',
    }),
  ).toMatchObject({ id: 'oidc', name: 'Keycloak', issuer: 'https://id.example.com/realms/x' });
});

test('half-set variables: off, and the problem names the missing ones; http only on loopback', () => {
  const c = providersConfig(
    { AZURE_AD_CLIENT_ID: 'a', OIDC_ISSUER: 'http://idp.example.com', OIDC_CLIENT_ID: 'c', OIDC_CLIENT_SECRET: 's' },
    BASE,
  );
  expect(c.oauth).toEqual([]);
  expect(c.problems.map((p) => p.message)).toEqual([
    'Microsoft sign-in not configured: AZURE_AD_CLIENT_SECRET, AZURE_AD_TENANT_ID missing',
    'OpenID Connect sign-in not configured: the issuer http://idp.example.com must be an https URL',
  ]);
  expect(providerNamed(c, 'azure-ad')).toEqual({ problem: c.problems[0].message, status: 503 });
  expect(one({ OIDC_ISSUER: 'http://127.0.0.1:9000', OIDC_CLIENT_ID: 'c', OIDC_CLIENT_SECRET: 's' }).issuer).toBe(
    'http://127.0.0.1:9000',
  );
  expect(() => loadConfig({ AUTH_PROVIDER_TIMEOUT_SECONDS: '0' })).toThrow(/AUTH_PROVIDER_TIMEOUT_SECONDS/);
  expect(loadConfig({}).providers).toEqual({ oauth: [], problems: [], timeoutSeconds: 10, email: undefined });
});
