import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as samlify from 'samlify';
import { makeIdp, signedResponse } from '../saml';

/**
 * A SAML identity provider in a process of its own, for the browser test (tests/saml-browser.test.ts):
 * the engine talks to it only through the browser, as to a real IdP. It knows the service provider
 * from the engine's metadata (fetched once, on the first request), and signs in one user, after asking.
 *
 * - GET  /sso           HTTP-Redirect binding: reads the AuthnRequest and shows a login page with a
 *                       "Sign in as <email>" button (a real IdP asks the person first)
 * - POST /sso/continue  answers with an auto-submitting form (HTTP-POST binding) that posts a signed
 *                       SAMLResponse, InResponseTo = the AuthnRequest's ID, and the RelayState to the
 *                       ACS of the engine's metadata
 *
 * Configuration, from the environment (the keys are made by the test on every run):
 *   IDP_KEY, IDP_CERT      PKCS#8 private key and certificate (PEM) it signs with
 *   IDP_ENTITY_ID          its entity ID (the engine's SAML_ISSUER)
 *   IDP_SP_METADATA_URL    the engine's /api/auth/saml/metadata
 *   IDP_USER_EMAIL, IDP_USER_NAME, IDP_USER_GROUPS (comma-separated)   who signs in
 *   IDP_PORT               0 (default): an ephemeral port; a fixed one lets a test restart the IdP in place
 * Once it listens it prints "idp listening on http://127.0.0.1:<port>" on stdout.
 */
const env = (name: string, fallback?: string): string => {
  const v = process.env[name] ?? fallback;
  if (v === undefined || v === '') throw new Error(`the IdP needs ${name}`);
  return v;
};

const idp = makeIdp({ key: env('IDP_KEY'), cert: env('IDP_CERT') }, env('IDP_ENTITY_ID'));
const spMetadataUrl = env('IDP_SP_METADATA_URL');
const user = {
  email: env('IDP_USER_EMAIL'),
  name: env('IDP_USER_NAME', env('IDP_USER_EMAIL')),
  groups: (process.env.IDP_USER_GROUPS ?? '')
    .split(',')
    .map((g) => g.trim())
    .filter(Boolean),
};

type Sp = ReturnType<typeof samlify.ServiceProvider>;
let spPromise: Promise<Sp> | undefined;
/** The SP as registered at this IdP: from its metadata, read once (the engine is up by the first request). */
function serviceProvider(): Promise<Sp> {
  spPromise ??= fetch(spMetadataUrl).then(async (res) => {
    if (!res.ok) throw new Error(`the SP metadata answered ${res.status}`);
    return samlify.ServiceProvider({ metadata: await res.text() });
  });
  spPromise.catch(() => (spPromise = undefined));
  return spPromise;
}

/** Logins between the login page and its button: the request they answer, kept here, not in the page. */
const pending = new Map<string, { requestId: string; relayState: string; spEntityId: string; at: number }>();
const PENDING_MS = 5 * 60_000;

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${esc(title)}</title>` +
  '<style>body{font-family:sans-serif;background:#eef2f7;display:flex;justify-content:center;padding-top:80px}' +
  '.card{background:#fff;padding:24px 32px;border-radius:8px;box-shadow:0 1px 4px #0002;min-width:360px}' +
  'button{background:#7c3aed;color:#fff;border:0;border-radius:6px;padding:10px 16px;font-size:15px;cursor:pointer}</style>' +
  `</head><body><div class="card">${body}</div></body></html>`;

function send(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(html);
}

const problem = (res: ServerResponse, status: number, message: string) =>
  send(res, status, page('Test IdP: error', `<h1>Test IdP</h1><p role="alert" id="idp-error">${esc(message)}</p>`));

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  let body = '';
  for await (const chunk of req) {
    body += chunk;
    if (body.length > 64 * 1024) throw new Error('form too large');
  }
  return new URLSearchParams(body);
}

/** GET /sso: the AuthnRequest of the Redirect binding, checked as an IdP does, then the login page. */
async function sso(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  if (!url.searchParams.get('SAMLRequest'))
    return problem(res, 400, 'No SAMLRequest: start the sign-in at the service.');
  const sp = await serviceProvider();
  // The octet string is the query exactly as sent: what a signed Redirect request's signature covers.
  const octetString = (req.url ?? '').slice((req.url ?? '').indexOf('?') + 1);
  const parsed = await idp.parseLoginRequest(sp, 'redirect', {
    query: Object.fromEntries(url.searchParams),
    octetString,
  });
  const request = parsed.extract.request as Record<string, string | undefined>;
  const issuer = String(parsed.extract.issuer ?? '');
  const acs = sp.entityMeta.getAssertionConsumerService('post') as string;
  if (issuer !== sp.entityMeta.getEntityID()) return problem(res, 400, `Unknown service provider ${issuer}.`);
  // A request may name its ACS; it must be the registered one, or responses could be sent elsewhere.
  if (request.assertionConsumerServiceUrl && request.assertionConsumerServiceUrl !== acs)
    return problem(
      res,
      400,
      `The AuthnRequest names the ACS URL ${request.assertionConsumerServiceUrl}, not the registered ${acs}.`,
    );
  if (!request.id) return problem(res, 400, 'The AuthnRequest has no ID.');
  const ticket = randomBytes(16).toString('hex');
  pending.set(ticket, {
    requestId: request.id,
    relayState: url.searchParams.get('RelayState') ?? '',
    spEntityId: issuer,
    at: Date.now(),
  });
  send(
    res,
    200,
    page(
      'Test IdP: sign in',
      `<h1>Test IdP</h1><p id="idp-request">${esc(issuer)} asks who you are.</p>` +
        `<form method="post" action="/sso/continue"><input type="hidden" name="ticket" value="${ticket}">` +
        `<button type="submit" id="idp-sign-in">Sign in as ${esc(user.email)}</button></form>`,
    ),
  );
}

/** POST /sso/continue: the signed response, delivered by the browser through an auto-submitting form. */
async function cont(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const form = await readForm(req);
  const ticket = form.get('ticket') ?? '';
  const login = pending.get(ticket);
  pending.delete(ticket);
  if (!login || Date.now() - login.at > PENDING_MS)
    return problem(res, 400, 'This sign-in is unknown or has expired: start again at the service.');
  const sp = await serviceProvider();
  const acs = sp.entityMeta.getAssertionConsumerService('post') as string;
  const attributes: Record<string, string | string[]> = { email: user.email, displayName: user.name };
  if (user.groups.length > 0) attributes.groups = user.groups;
  const samlResponse = await signedResponse(idp, sp, login.requestId, {
    nameId: user.email,
    attributes,
    values: {
      Destination: acs,
      SubjectRecipient: acs,
      Audience: login.spEntityId,
      Issuer: idp.entityMeta.getEntityID(),
    },
  });
  send(
    res,
    200,
    page(
      'Test IdP: signing in',
      `<p>Signing you in…</p><form method="post" action="${esc(acs)}" id="saml-post">` +
        `<input type="hidden" name="SAMLResponse" value="${esc(samlResponse)}">` +
        `<input type="hidden" name="RelayState" value="${esc(login.relayState)}">` +
        '<noscript><button type="submit">Continue</button></noscript></form>' +
        "<script>document.getElementById('saml-post').submit()</script>",
    ),
  );
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://idp.invalid');
  const route =
    req.method === 'GET' && url.pathname === '/sso'
      ? sso(req, res, url)
      : req.method === 'POST' && url.pathname === '/sso/continue'
        ? cont(req, res)
        : Promise.resolve(problem(res, 404, 'Not found.'));
  route.catch((err: unknown) => {
    // The reason goes to the test's log (stderr) and the page; it never holds key material.
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`idp: ${req.method} ${url.pathname} failed: ${message}\n`);
    if (!res.headersSent) problem(res, 500, `The IdP could not answer: ${message}`);
    else res.end();
  });
});

server.listen(Number(process.env.IDP_PORT ?? '0'), '127.0.0.1', () => {
  process.stdout.write(`idp listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});

// The test ends it with SIGTERM; close cleanly so that a restart on the same port finds it free.
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
