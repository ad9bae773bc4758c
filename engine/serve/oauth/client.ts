import type * as OpenId from 'openid-client';
import type { OAuthProvider } from '../../core/sign-in-providers';
import { SignInRefused } from '../auth/provision-user';
import type { ProviderIdentity } from '../auth/provider-links';

/**
 * The OpenID Connect relying party, through openid-client: discovery (once per provider, cached;
 * a failed one is tried again on the next sign-in), the authorization URL with PKCE S256, state and
 * nonce, and the code exchange, where openid-client checks the ID token (signature through the
 * issuer's JWKS, issuer, audience, expiry, nonce) and the state. Nothing here reads a token itself.
 */
type Lib = typeof OpenId;

/**
 * openid-client is an ES module. Node's own require() loads it (Node 20.19 and later), and it is
 * loaded only when a provider sign-in happens. Through Node's module loader, reached by
 * process.getBuiltinModule: under Jest, the file's require and node:module are Jest's stand-ins,
 * which cannot load ES modules, and the tests run the engine in the test process.
 */
let lib: Lib | undefined;
const openid = (): Lib =>
  (lib ??= process.getBuiltinModule('node:module').createRequire(__filename)('openid-client') as Lib);

export interface ProviderSettings {
  provider: OAuthProvider;
  timeoutSeconds: number;
}

const discovered = new Map<string, Promise<OpenId.Configuration>>();

/** The provider's configuration from its discovery document, read once and kept. */
export function providerConfiguration(s: ProviderSettings): Promise<OpenId.Configuration> {
  const p = s.provider;
  const key = `${p.id} ${p.issuer} ${p.clientId}`;
  let found = discovered.get(key);
  if (!found) {
    const o = openid();
    // openid-client trusts an ID token from the token endpoint on TLS alone unless told otherwise
    // (OpenID Connect Core 3.1.3.7 allows it): its signature is checked against the issuer's JWKS too.
    const execute = [o.enableNonRepudiationChecks];
    // http is accepted only for loopback issuers (core/sign-in-providers.ts): a provider on this machine.
    if (new URL(p.issuer).protocol === 'http:') execute.push(o.allowInsecureRequests);
    found = o.discovery(new URL(p.discoveryUrl ?? p.issuer), p.clientId, p.clientSecret, undefined, {
      execute,
      timeout: s.timeoutSeconds,
    });
    discovered.set(key, found);
    found.catch(() => discovered.delete(key));
  }
  return found.catch((err: unknown) => {
    throw new SignInRefused(`${p.name} cannot be reached right now (${reason(err)}); try again later`, 502);
  });
}

/** Fresh state, nonce and PKCE code verifier for a sign-in that starts now. */
export function newChecks(): { state: string; nonce: string; codeVerifier: string } {
  const o = openid();
  return { state: o.randomState(), nonce: o.randomNonce(), codeVerifier: o.randomPKCECodeVerifier() };
}

/** Where the browser goes to sign in at the provider. */
export async function authorizationUrl(
  s: ProviderSettings,
  checks: { state: string; nonce: string; codeVerifier: string },
): Promise<string> {
  const config = await providerConfiguration(s);
  const o = openid();
  return o
    .buildAuthorizationUrl(config, {
      redirect_uri: s.provider.redirectUri,
      scope: s.provider.scope,
      code_challenge: await o.calculatePKCECodeChallenge(checks.codeVerifier),
      code_challenge_method: 'S256',
      state: checks.state,
      nonce: checks.nonce,
    })
    .toString();
}

/** A claim that a provider may send as a boolean or as the string "true". */
const isTrue = (v: unknown) => v === true || v === 'true';

/**
 * The callback: the code exchanged (with the PKCE verifier), the ID token checked by openid-client
 * against the expected state and nonce, and who signed in. E-mail and its verification come from the
 * ID token, else from the userinfo endpoint (whose `sub` openid-client checks against the token's).
 */
export async function finishAuthorization(
  s: ProviderSettings,
  query: string,
  checks: { state: string; nonce: string; codeVerifier: string },
): Promise<ProviderIdentity> {
  const config = await providerConfiguration(s);
  const o = openid();
  const p = s.provider;
  let tokens: Awaited<ReturnType<Lib['authorizationCodeGrant']>>;
  try {
    tokens = await o.authorizationCodeGrant(config, new URL(`${p.redirectUri}?${query}`), {
      pkceCodeVerifier: checks.codeVerifier,
      expectedState: checks.state,
      expectedNonce: checks.nonce,
      idTokenExpected: true,
    });
  } catch (err) {
    throw explain(p, err);
  }
  const claims = tokens.claims()!;
  let info: Record<string, unknown> = claims;
  if (typeof claims.email !== 'string') {
    try {
      info = { ...(await o.fetchUserInfo(config, tokens.access_token, claims.sub)), ...claims };
    } catch (err) {
      throw explain(p, err);
    }
  }
  const email = typeof info.email === 'string' ? info.email.trim() : '';
  if (!/^[^@\s]+@[^@\s]+$/.test(email))
    throw new SignInRefused(`${p.name} did not give an e-mail address for this account (scope "email")`, 403);
  const name = typeof info.name === 'string' ? info.name.trim() : '';
  return {
    provider: p.id,
    issuer: claims.iss,
    subject: claims.sub,
    email,
    emailVerified: isTrue(info.email_verified),
    displayName: name,
  };
}

/** The library's reason, as the person signing in may read it (no token, no secret: only what failed). */
function reason(err: unknown): string {
  const e = err as { message?: string; cause?: { message?: string; code?: string }; code?: string };
  const cause = e.cause?.code ?? e.cause?.message;
  return [e.message ?? String(err), cause].filter(Boolean).join(': ');
}

const CLAIM_PROBLEMS: Array<[RegExp, string]> = [
  [/"iss"/, 'its ID token comes from another issuer'],
  [/"aud"/, 'its ID token is meant for another application (audience)'],
  [/"azp"/, 'its ID token is meant for another application (authorized party)'],
  [/nonce/i, 'its ID token answers another sign-in (nonce)'],
  [/"exp"/, 'its ID token has expired'],
  [/"iat"|"nbf"/, 'its ID token is not valid at this time'],
  [/signature/i, 'its ID token is not signed with a key of the provider'],
  [/state/i, 'the answer belongs to another sign-in (state)'],
];

/** A refused code exchange, in words: the provider's own error, or which check of the ID token failed. */
function explain(p: OAuthProvider, err: unknown): SignInRefused {
  const e = err as { name?: string; error?: string; error_description?: string; message?: string };
  if (e.name === 'AuthorizationResponseError' || e.name === 'ResponseBodyError') {
    const desc = e.error_description ? ` (${e.error_description})` : '';
    return new SignInRefused(`${p.name} did not sign you in: ${e.error ?? 'error'}${desc}`);
  }
  // openid-client wraps the check that failed (oauth4webapi's) as its cause: both messages are read.
  const msg = `${e.message ?? ''} ${(err as { cause?: { message?: string } }).cause?.message ?? ''}`;
  const known = CLAIM_PROBLEMS.find(([re]) => re.test(msg));
  if (known) return new SignInRefused(`${p.name} sign-in refused: ${known[1]}`);
  if (/fetch failed|timeout|abort/i.test(msg + reason(err)))
    return new SignInRefused(`${p.name} cannot be reached right now (${reason(err)}); try again later`, 502);
  return new SignInRefused(`${p.name} sign-in refused: ${reason(err)}`);
}
