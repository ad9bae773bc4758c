import type { Env } from './env';
import { positive } from './env';

/**
 * The OpenID Connect / OAuth 2.0 sign-in providers, each enabled by its variables in the style of
 * NEXTAUTH_URL / NEXTAUTH_SECRET. All are OpenID Connect underneath: a provider is an issuer (whose
 * discovery document names its endpoints and keys), a client ID and a client secret. A provider
 * with some but not all of its variables set is not enabled, and `problems` says which variable is
 * missing (start-up logs it; its sign-in route answers with it).
 */
export interface OAuthProvider {
  /** The name in the routes: /api/auth/signin/<id>, /api/auth/callback/<id>. */
  id: string;
  /** What the sign-in button says: "Sign in with <name>". */
  name: string;
  /** The issuer whose discovery document (<issuer>/.well-known/openid-configuration) is read. */
  issuer: string;
  /**
   * Where the discovery document is when it is not under the issuer's own name: Azure AD B2C's
   * tenant-name URL, whose document names the tenant's ID as issuer.
   */
  discoveryUrl?: string;
  clientId: string;
  clientSecret: string;
  /** {NEXTAUTH_URL}/api/auth/callback/<id>: to register at the provider. */
  redirectUri: string;
  scope: string;
}

export interface ProvidersConfig {
  /** Enabled providers, in the order the sign-in page shows them. */
  oauth: OAuthProvider[];
  /** Providers whose variables are half set (or wrong): "<Name> sign-in not configured: X missing". */
  problems: Array<{ provider: string; message: string }>;
  /** Longest a request to a provider (discovery, token, keys, userinfo) may take, in seconds. */
  timeoutSeconds: number;
  /** The e-mail link (EMAIL_SERVER, an SMTP URL, and EMAIL_FROM): on when both are set. */
  email?: { server: string; from: string };
}

/** EMAIL_SERVER and EMAIL_FROM: both, or neither (then a problem says which is missing). */
function emailConfig(env: Env, problems: ProvidersConfig['problems']): ProvidersConfig['email'] {
  const server = (env.EMAIL_SERVER ?? '').trim();
  const from = (env.EMAIL_FROM ?? '').trim();
  if (!server && !from) return undefined;
  const missing = [!server && 'EMAIL_SERVER', !from && 'EMAIL_FROM'].filter(Boolean);
  let why = missing.length > 0 ? `${missing.join(', ')} missing` : '';
  if (!why && !/^smtps?:\/\//i.test(server)) why = 'EMAIL_SERVER must be an smtp:// or smtps:// URL';
  if (why) {
    problems.push({ provider: 'email', message: `E-mail sign-in not configured: ${why}` });
    return undefined;
  }
  return { server, from };
}

interface Spec {
  id: string;
  name: string;
  /** Variable names, all required. */
  vars: string[];
  /** Issuer (and discovery URL) from the variables' values, in the order of `vars`. */
  issuer(v: Record<string, string>): { issuer: string; discoveryUrl?: string };
}

const trimSlash = (u: string) => u.replace(/\/+$/, '');
/** Auth0 and OneLogin name their issuer by URL or bare host; either is accepted. */
const asUrl = (u: string) => trimSlash(/^https?:\/\//i.test(u) ? u : `https://${u}`);

const SPECS: Spec[] = [
  {
    id: 'google',
    name: 'Google',
    vars: ['GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_SECRET'],
    issuer: () => ({ issuer: 'https://accounts.google.com' }),
  },
  {
    id: 'azure-ad',
    name: 'Microsoft',
    vars: ['AZURE_AD_CLIENT_ID', 'AZURE_AD_CLIENT_SECRET', 'AZURE_AD_TENANT_ID'],
    issuer: (v) => ({ issuer: `https://login.microsoftonline.com/${encodeURIComponent(v.AZURE_AD_TENANT_ID)}/v2.0` }),
  },
  {
    id: 'azure-ad-b2c',
    name: 'Azure AD B2C',
    vars: [
      'AZURE_AD_B2C_CLIENT_ID',
      'AZURE_AD_B2C_CLIENT_SECRET',
      'AZURE_AD_B2C_TENANT_NAME',
      'AZURE_AD_B2C_PRIMARY_USER_FLOW',
    ],
    issuer: (v) => {
      const t = encodeURIComponent(v.AZURE_AD_B2C_TENANT_NAME);
      const base = `https://${t}.b2clogin.com/${t}.onmicrosoft.com/${encodeURIComponent(v.AZURE_AD_B2C_PRIMARY_USER_FLOW)}/v2.0`;
      return { issuer: base, discoveryUrl: `${base}/.well-known/openid-configuration` };
    },
  },
  {
    id: 'auth0',
    name: 'Auth0',
    vars: ['AUTH0_CLIENT_ID', 'AUTH0_CLIENT_SECRET', 'AUTH0_ISSUER'],
    issuer: (v) => ({ issuer: asUrl(v.AUTH0_ISSUER) }),
  },
  {
    id: 'onelogin',
    name: 'OneLogin',
    vars: ['ONELOGIN_CLIENT_ID', 'ONELOGIN_CLIENT_SECRET', 'ONELOGIN_ISSUER'],
    issuer: (v) => ({ issuer: asUrl(v.ONELOGIN_ISSUER) }),
  },
  {
    id: 'oidc',
    name: 'OpenID Connect',
    vars: ['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'],
    issuer: (v) => ({ issuer: trimSlash(v.OIDC_ISSUER) }),
  },
];

/** The client ID and secret of a spec are its variables named *_CLIENT_ID and *_CLIENT_SECRET. */
const valueEnding = (v: Record<string, string>, suffix: string) => v[Object.keys(v).find((k) => k.endsWith(suffix))!];

/**
 * An issuer must be an https URL; plain http only on this machine's loopback addresses (a
 * development or test provider), where nothing travels over a network.
 */
function issuerProblem(issuer: string): string | undefined {
  let u: URL;
  try {
    u = new URL(issuer);
  } catch {
    return `the issuer "${issuer}" is not a URL`;
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname);
  if (u.protocol === 'https:' || (u.protocol === 'http:' && loopback)) return undefined;
  return `the issuer ${issuer} must be an https URL`;
}

function providerOf(
  spec: Spec,
  env: Env,
  baseUrl: string,
  problems: ProvidersConfig['problems'],
): OAuthProvider | undefined {
  const values: Record<string, string> = {};
  for (const name of spec.vars) values[name] = (env[name] ?? '').trim();
  const missing = spec.vars.filter((n) => values[n] === '');
  if (missing.length === spec.vars.length) return undefined;
  const name = spec.id === 'oidc' ? (env.OIDC_NAME ?? '').trim() || spec.name : spec.name;
  const notConfigured = (why: string) => {
    problems.push({ provider: spec.id, message: `${name} sign-in not configured: ${why}` });
    return undefined;
  };
  if (missing.length > 0) return notConfigured(`${missing.join(', ')} missing`);
  const { issuer, discoveryUrl } = spec.issuer(values);
  const problem = issuerProblem(issuer);
  if (problem) return notConfigured(problem);
  return {
    id: spec.id,
    name,
    issuer,
    discoveryUrl,
    clientId: valueEnding(values, '_CLIENT_ID'),
    clientSecret: valueEnding(values, '_CLIENT_SECRET'),
    redirectUri: `${baseUrl}/api/auth/callback/${spec.id}`,
    scope: 'openid email profile',
  };
}

export function providersConfig(env: Env, baseUrl: string): ProvidersConfig {
  const problems: ProvidersConfig['problems'] = [];
  const oauth = SPECS.map((s) => providerOf(s, env, baseUrl, problems)).filter((p): p is OAuthProvider => !!p);
  const email = emailConfig(env, problems);
  return { oauth, problems, timeoutSeconds: positive(env, 'AUTH_PROVIDER_TIMEOUT_SECONDS', 10), email };
}

/** The provider of a route's name, or why there is none. */
export function providerNamed(
  config: ProvidersConfig,
  id: string,
): { provider: OAuthProvider } | { problem: string; status: 404 | 503 } {
  const provider = config.oauth.find((p) => p.id === id);
  if (provider) return { provider };
  const problem = config.problems.find((p) => p.provider === id);
  if (problem) return { problem: problem.message, status: 503 };
  const spec = SPECS.find((s) => s.id === id);
  return {
    problem: spec
      ? `${spec.name} sign-in is not enabled (${spec.vars.join(', ')})`
      : `there is no sign-in provider named ${id}`,
    status: 404,
  };
}
