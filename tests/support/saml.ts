import { generateKeyPairSync, randomBytes, createPrivateKey } from 'node:crypto';
import forge from 'node-forge';
import * as samlify from 'samlify';
import { validateSamlSchema } from '../../engine/serve/saml/schema-validator';
import { SESSION_COOKIE } from '../../engine/serve/auth/session-cookie';
import { STATE_COOKIE } from '../../engine/serve/saml/state';

/**
 * A SAML identity provider made in the test: its own RSA key pair and self-signed certificate, made
 * here on every run (nothing secret is in the sources), and samlify's IdentityProvider to answer the
 * engine's AuthnRequests with signed responses that tests can bend one field at a time.
 */
samlify.setSchemaValidator({ validate: validateSamlSchema });

export const IDP_ENTITY_ID = 'https://idp.test/metadata';
export const IDP_SSO_URL = 'https://idp.test/sso';
export const AUDIENCE = 'http://platform.test';
const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
const DAY = 24 * 3600 * 1000;

export interface KeyAndCert {
  /** PKCS#8 PEM private key. */
  key: string;
  /** PEM certificate. */
  cert: string;
}

/** A fresh RSA key and a self-signed certificate valid from `fromDays` to `toDays` days from now. */
export function makeCertificate(opts: { fromDays?: number; toDays?: number; cn?: string } = {}): KeyAndCert {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  cert.serialNumber = `01${randomBytes(8).toString('hex')}`;
  const now = Date.now();
  cert.validity.notBefore = new Date(now + (opts.fromDays ?? -1) * DAY);
  cert.validity.notAfter = new Date(now + (opts.toDays ?? 365) * DAY);
  const attrs = [{ name: 'commonName', value: opts.cn ?? 'idp.test' }];
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  const pkcs1 = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  cert.sign(forge.pki.privateKeyFromPem(pkcs1), forge.md.sha256.create());
  return {
    key: createPrivateKey(pkcs1).export({ type: 'pkcs8', format: 'pem' }).toString(),
    cert: forge.pki.certificateToPem(cert),
  };
}

/** The certificate's base64 body alone (SAML_CERT as many IdPs show it: no BEGIN/END lines). */
export const certBody = (pem: string) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');

export function makeIdp(kc: KeyAndCert, entityID = IDP_ENTITY_ID) {
  return samlify.IdentityProvider({
    entityID,
    privateKey: kc.key,
    signingCert: kc.cert,
    nameIDFormat: [EMAIL_FORMAT],
    singleSignOnService: [{ Binding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect', Location: IDP_SSO_URL }],
  });
}

/** The engine's SAML environment for an IdP certificate. */
export function samlEnv(cert: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    EDITION: 'enterprise',
    SAML_ENABLED: 'true',
    SAML_ENTRY_POINT: IDP_SSO_URL,
    SAML_ISSUER: IDP_ENTITY_ID,
    SAML_CERT: certBody(cert),
    SAML_AUDIENCE: AUDIENCE,
    ...extra,
  };
}

export interface ResponseFields {
  nameId: string;
  attributes?: Record<string, string | string[]>;
  /** Overrides of the template's values (Audience, Destination, InResponseTo, times ...); null drops the attribute. */
  values?: Record<string, string | null>;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function attributeStatement(attrs: Record<string, string | string[]>): string {
  const entries = Object.entries(attrs);
  if (entries.length === 0) return '';
  const one = ([name, v]: [string, string | string[]]) =>
    `<saml:Attribute Name="${esc(name)}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic">${(Array.isArray(
      v,
    )
      ? v
      : [v]
    )
      .map((x) => `<saml:AttributeValue xsi:type="xs:string">${esc(x)}</saml:AttributeValue>`)
      .join('')}</saml:Attribute>`;
  return `<saml:AttributeStatement>${entries.map(one).join('')}</saml:AttributeStatement>`;
}

/** A started login: the IdP's view of the AuthnRequest and the browser's state cookie. */
export interface Started {
  requestId: string;
  location: URL;
  /** "platform_saml_state=..." for a Cookie header. */
  cookie: string;
  setCookie: string;
}

export async function startLogin(baseUrl: string, next?: string): Promise<Started> {
  const res = await fetch(`${baseUrl}/api/auth/saml/login${next ? `?next=${encodeURIComponent(next)}` : ''}`, {
    redirect: 'manual',
  });
  if (res.status !== 302) throw new Error(`login did not redirect: ${res.status} ${await res.text()}`);
  const location = new URL(res.headers.get('location')!);
  const setCookie = res.headers.getSetCookie().find((c) => c.startsWith(`${STATE_COOKIE}=`))!;
  const cookie = setCookie.split(';')[0];
  return { requestId: '', location, cookie, setCookie };
}

/** The SP as the IdP knows it: from the engine's own metadata. */
export async function spFromMetadata(baseUrl: string) {
  const xml = await (await fetch(`${baseUrl}/api/auth/saml/metadata`)).text();
  return samlify.ServiceProvider({ metadata: xml });
}

type Idp = ReturnType<typeof makeIdp>;
type Sp = Awaited<ReturnType<typeof spFromMetadata>>;

/** The IdP parses the AuthnRequest of a started login (as a real IdP would); its ID. */
export async function requestIdOf(idp: Idp, sp: Sp, started: Started): Promise<string> {
  const query = Object.fromEntries(started.location.searchParams.entries());
  const octetString = started.location.search.slice(1);
  const info = await idp.parseLoginRequest(sp, 'redirect', { query, octetString });
  return String((info.extract.request as Record<string, string>).id);
}

/** A signed login response of `idp` to the request `requestId`, base64 (the SAMLResponse field). */
export async function signedResponse(idp: Idp, sp: Sp, requestId: string, f: ResponseFields): Promise<string> {
  const now = new Date();
  const later = new Date(now.getTime() + 5 * 60_000).toISOString();
  const template = samlify.SamlLib.defaultLoginResponseTemplate.context
    .replace('{AttributeStatement}', attributeStatement(f.attributes ?? {}))
    .replace('{AuthnStatement}', '');
  const id = `_${randomBytes(16).toString('hex')}`;
  const values: Record<string, string | null> = {
    ID: id,
    AssertionID: `_${randomBytes(16).toString('hex')}`,
    Destination: 'http://platform.test/api/auth/saml/acs',
    Audience: AUDIENCE,
    SubjectRecipient: 'http://platform.test/api/auth/saml/acs',
    Issuer: IDP_ENTITY_ID,
    IssueInstant: now.toISOString(),
    StatusCode: 'urn:oasis:names:tc:SAML:2.0:status:Success',
    ConditionsNotBefore: new Date(now.getTime() - 60_000).toISOString(),
    ConditionsNotOnOrAfter: later,
    SubjectConfirmationDataNotOnOrAfter: later,
    NameIDFormat: EMAIL_FORMAT,
    NameID: f.nameId,
    InResponseTo: requestId,
    ...f.values,
  };
  const r = await idp.createLoginResponse(
    sp,
    { extract: { request: { id: requestId } } },
    'post',
    { email: f.nameId },
    {
      customTagReplacement: () => ({
        id,
        context: samlify.SamlLib.replaceTagsByValue(template, values as Record<string, string>),
      }),
    },
  );
  return r.context;
}

/** The same response XML, unsigned. */
export function unsignedResponse(requestId: string, f: ResponseFields): string {
  const now = new Date();
  const later = new Date(now.getTime() + 5 * 60_000).toISOString();
  const template = samlify.SamlLib.defaultLoginResponseTemplate.context
    .replace('{AttributeStatement}', attributeStatement(f.attributes ?? {}))
    .replace('{AuthnStatement}', '');
  const xml = samlify.SamlLib.replaceTagsByValue(template, {
    ID: `_${randomBytes(16).toString('hex')}`,
    AssertionID: `_${randomBytes(16).toString('hex')}`,
    Destination: 'http://platform.test/api/auth/saml/acs',
    Audience: AUDIENCE,
    SubjectRecipient: 'http://platform.test/api/auth/saml/acs',
    Issuer: IDP_ENTITY_ID,
    IssueInstant: now.toISOString(),
    StatusCode: 'urn:oasis:names:tc:SAML:2.0:status:Success',
    ConditionsNotBefore: now.toISOString(),
    ConditionsNotOnOrAfter: later,
    SubjectConfirmationDataNotOnOrAfter: later,
    NameIDFormat: EMAIL_FORMAT,
    NameID: f.nameId,
    InResponseTo: requestId,
  });
  return Buffer.from(xml, 'utf8').toString('base64');
}

export const decode = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');
export const encode = (xml: string) => Buffer.from(xml, 'utf8').toString('base64');

export interface AcsResult {
  status: number;
  location: string | null;
  text: string;
  /** "platform_session=..." when a session was set. */
  session?: string;
}

/** The browser posting the IdP's form to the ACS, with its state cookie. */
export async function postAcs(baseUrl: string, samlResponse: string, cookie?: string): Promise<AcsResult> {
  const res = await fetch(`${baseUrl}/api/auth/saml/acs`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
    body: new URLSearchParams({ SAMLResponse: samlResponse, RelayState: '' }).toString(),
  });
  const session = res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  return {
    status: res.status,
    location: res.headers.get('location'),
    text: await res.text(),
    session: session?.split(';')[0],
  };
}
