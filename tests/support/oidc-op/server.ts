import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { exportJWK, generateKeyPair, importJWK, SignJWT, decodeJwt, type JWK } from 'jose';
import type * as OidcProvider from 'oidc-provider';

/**
 * An OpenID Connect provider in a process of its own (the `oidc-provider` package), for the provider
 * sign-in tests (tests/oidc-browser.test.ts): the engine reaches it only over HTTP, as it would a
 * real one. It signs in one person after asking them on a login page of its own.
 *
 * - /.well-known/openid-configuration, /auth, /token, /jwks, /me ...   oidc-provider's
 * - GET  /interaction/:uid          the login page: "Sign in as <email>" (#op-sign-in), "Cancel" (#op-deny)
 * - POST /interaction/:uid/login    signs the person in and grants the scopes asked for
 * - POST /interaction/:uid/deny     answers the client with error=access_denied
 * - POST /test/user                 JSON {sub, email, email_verified, name}: who signs in from now on
 * - POST /test/tamper               JSON {claim, value} or {key: true}: the next token answer's ID token
 *                                   is signed again with that claim changed, or with a key of nobody's
 *
 * Configuration, from the environment:
 *   OP_PORT       the port (the issuer is http://127.0.0.1:<port>, known to the engine before start)
 *   OP_CLIENTS    JSON [{client_id, client_secret, redirect_uris}]
 *   OP_USER       JSON {sub, email, email_verified, name}
 * Once it listens it prints "op listening on http://127.0.0.1:<port>" on stdout.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Provider = (require('oidc-provider') as { default: typeof OidcProvider.default }).default;

const port = Number(process.env.OP_PORT);
const issuer = `http://127.0.0.1:${port}`;
let user = JSON.parse(process.env.OP_USER ?? '{}') as Record<string, unknown>;
let tamper: { claim?: string; value?: unknown; key?: boolean } | undefined;

const escape = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

async function body(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text;
}

async function main() {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'op-key-1', alg: 'RS256', use: 'sig' } as JWK;
  const provider = new Provider(issuer, {
    clients: JSON.parse(process.env.OP_CLIENTS ?? '[]'),
    jwks: { keys: [jwk] as never },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, sub) => ({
      accountId: sub,
      claims: () => ({ ...user, sub }),
    }),
  });
  provider.proxy = false;

  // The tampered ID token: the provider's own, with one claim changed, signed again.
  provider.use(async (ctx, next) => {
    await next();
    const answer = ctx.body as { id_token?: string } | undefined;
    if (ctx.path !== '/token' || !tamper || !answer?.id_token) return;
    const claims = { ...decodeJwt(answer.id_token) } as Record<string, unknown>;
    if (tamper.claim) claims[tamper.claim] = tamper.value;
    const key = tamper.key ? (await generateKeyPair('RS256')).privateKey : await importJWK(jwk, 'RS256');
    answer.id_token = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: jwk.kid }).sign(key);
    tamper = undefined;
  });

  const callback = provider.callback();
  const server = createServer((req, res) => {
    handle(provider, callback, req, res).catch((err: Error) => {
      process.stderr.write(`${err.stack}\n`);
      if (!res.headersSent) res.writeHead(500).end(err.message);
    });
  });
  server.listen(port, '127.0.0.1', () => process.stdout.write(`op listening on ${issuer}\n`));
}

async function handle(
  provider: InstanceType<typeof Provider>,
  callback: ReturnType<InstanceType<typeof Provider>['callback']>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? '/', issuer);
  const m = /^\/interaction\/([^/]+)(\/login|\/deny)?$/.exec(url.pathname);
  if (req.method === 'POST' && url.pathname === '/test/user') {
    user = JSON.parse(await body(req));
    return void res.writeHead(204).end();
  }
  if (req.method === 'POST' && url.pathname === '/test/tamper') {
    tamper = JSON.parse(await body(req));
    return void res.writeHead(204).end();
  }
  if (!m) return void callback(req, res);
  const details = await provider.interactionDetails(req, res);
  if (req.method === 'GET' && !m[2]) {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    return void res.end(`<!doctype html><title>Test provider</title>
<p id="op-request">${escape(String(details.params.client_id))} asks who you are</p>
<form method="post" action="/interaction/${details.uid}/login"><button id="op-sign-in">Sign in as ${escape(String(user.email))}</button></form>
<form method="post" action="/interaction/${details.uid}/deny"><button id="op-deny">Cancel</button></form>`);
  }
  if (m[2] === '/deny') {
    const result = { error: 'access_denied', error_description: 'the person cancelled' };
    return provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
  }
  const accountId = String(user.sub);
  const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
  grant.addOIDCScope(String(details.params.scope));
  const grantId = await grant.save();
  await provider.interactionFinished(
    req,
    res,
    { login: { accountId }, consent: { grantId } },
    { mergeWithLastSubmission: false },
  );
}

void main();
