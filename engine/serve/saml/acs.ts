import type * as XmlDom from '@xmldom/xmldom';
import type { SamlConfig } from '../../core/config';
import { onFirstUse } from '../../core/on-first-use';
import { SignInRefused } from '../auth/provision-user';
import { checkCertificate } from './certificate';
import { CLOCK_SKEW_MS, identityProvider, isConfigured, samlify, serviceProvider, type Configured } from './provider';
import type { SamlState } from './state';
import { refuseXml } from './xml-guard';

/** A refused SAML login: the message is shown to the person signing in; no detail of keys or secrets. */
export class SamlLoginError extends SignInRefused {}

/** The XML parser of the checked documents, loaded with samlify at the first SAML response. */
const xmldom = onFirstUse<typeof XmlDom>('@xmldom/xmldom');

/** Who the IdP says signed in, from a response that passed every check. */
export interface SamlIdentity {
  issuer: string;
  nameId: string;
  email: string;
  displayName: string;
  /** The groups of the first group attribute present, and whether one was present at all. */
  groups: string[];
  hasGroupAttribute: boolean;
  assertionId: string;
  /** When the assertion stops being valid (kept that long in the replay store). */
  expiresAt: Date;
  relayState: string;
}

const SAML = 'urn:oasis:names:tc:SAML:2.0:assertion';
const SAMLP = 'urn:oasis:names:tc:SAML:2.0:protocol';
const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';
/** Base64 of a response larger than this is not a SAML response. */
export const MAX_RESPONSE_CHARS = 512 * 1024;

export const EMAIL_ATTRIBUTES = ['email', 'mail'];
export const NAME_ATTRIBUTES = ['displayName', 'name'];
export const GROUP_ATTRIBUTES = ['groups', 'Group', 'memberOf', 'roles', 'Role'];
const GROUP_CLAIM_SUFFIXES = ['/claims/Group', '/identity/claims/groups'];

type El = Element;
const children = (el: El, ns: string, name: string): El[] => {
  const out: El[] = [];
  for (let n = el.firstChild; n; n = n.nextSibling)
    if (n.nodeType === 1 && (n as El).namespaceURI === ns && (n as El).localName === name) out.push(n as El);
  return out;
};
const child = (el: El | undefined, ns: string, name: string): El | undefined =>
  el ? children(el, ns, name)[0] : undefined;
const text = (el: El | undefined) => (el?.textContent ?? '').trim();
const time = (value: string | null | undefined): number | undefined => {
  if (!value) return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : t;
};

/** Attribute name -> values, from the assertion's AttributeStatements. */
function attributesOf(assertion: El): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const statement of children(assertion, SAML, 'AttributeStatement')) {
    for (const attr of children(statement, SAML, 'Attribute')) {
      const name = attr.getAttribute('Name') ?? '';
      const values = children(attr, SAML, 'AttributeValue')
        .map(text)
        .filter((v) => v !== '');
      out.set(name, [...(out.get(name) ?? []), ...values]);
    }
  }
  return out;
}

/** The spec's attribute mapping: e-mail, display name and groups, each from the first attribute present. */
export function mapAttributes(
  attrs: Map<string, string[]>,
  nameId: string,
): { email: string; displayName: string; groups: string[]; hasGroupAttribute: boolean } {
  const first = (names: string[]) => names.map((n) => attrs.get(n)?.[0]).find((v) => v !== undefined && v !== '');
  const email = first(EMAIL_ATTRIBUTES) ?? nameId;
  const full = [attrs.get('firstName')?.[0], attrs.get('lastName')?.[0]].filter(Boolean).join(' ');
  const displayName = first(NAME_ATTRIBUTES) ?? (full || email);
  const groupNames = [
    ...GROUP_ATTRIBUTES,
    ...[...attrs.keys()].filter((k) => GROUP_CLAIM_SUFFIXES.some((s) => k.endsWith(s))),
  ];
  const found = groupNames.find((n) => attrs.has(n));
  return {
    email: email.trim(),
    displayName: displayName.trim(),
    groups: found ? [...new Set(attrs.get(found))] : [],
    hasGroupAttribute: found !== undefined,
  };
}

const SIGNATURE_ERRORS = [
  'FAILED_TO_VERIFY_SIGNATURE',
  'ERROR_UNMATCH_CERTIFICATE_DECLARATION_IN_METADATA',
  'NO_SELECTED_CERTIFICATE',
  'NO_SIGNATURE_REFERENCES',
  'ERR_POTENTIAL_WRAPPING_ATTACK',
];

function explain(err: unknown): SamlLoginError {
  const msg = err instanceof Error ? err.message : String(err);
  if (SIGNATURE_ERRORS.some((e) => msg.includes(e)))
    return new SamlLoginError(
      'Signature validation fails: the response is not signed with the IdP certificate (SAML_CERT)',
    );
  if (msg.includes('ERR_UNMATCH_ISSUER'))
    return new SamlLoginError('the response does not come from the configured IdP (its Issuer is not SAML_ISSUER)');
  if (msg.includes('ERR_SUBJECT_UNCONFIRMED') || msg.includes('ERR_EXPIRED_SESSION'))
    return new SamlLoginError('the assertion has expired or is not yet valid (NotBefore / NotOnOrAfter)');
  if (msg.includes('ERR_FAILED_STATUS') || msg.includes('ERR_UNDEFINED_STATUS'))
    return new SamlLoginError('the IdP did not sign the user in (the response status is not Success)');
  return new SamlLoginError('the SAML response is not a valid SAML 2.0 response (schema validation failed)', 400);
}

/** The checks before any XML parser runs: configuration, size and shape, the login state, the certificate. */
function checkBeforeParsing(
  saml: SamlConfig,
  encoded: unknown,
  state: SamlState | undefined,
  now: number,
): { saml: Configured; encoded: string; state: SamlState } {
  if (!isConfigured(saml)) throw new SamlLoginError(`SAML not configured: ${saml.missing.join(', ')} missing`, 503);
  if (typeof encoded !== 'string' || encoded === '')
    throw new SamlLoginError('the request carries no SAMLResponse', 400);
  if (encoded.length > MAX_RESPONSE_CHARS) throw new SamlLoginError('the SAMLResponse is too large', 413);
  const xml = Buffer.from(encoded, 'base64').toString('utf8');
  const refused = refuseXml(xml);
  if (refused) throw new SamlLoginError(refused, 400);
  if (!state)
    throw new SamlLoginError(
      'Invalid session data: the sign-in took longer than 60 seconds or its session cookie is missing. Start the sign-in again.',
    );
  const cert = checkCertificate(saml.cert, new Date(now));
  if (!cert.ok) throw new SamlLoginError(`Signature validation fails: ${cert.problem}`);
  if (cert.health.expired)
    throw new SamlLoginError('Signature validation fails: the IdP certificate (SAML_CERT) has expired');
  return { saml, encoded, state };
}

/**
 * samlify's schema validation, signature (response or assertion, with SAML_CERT only), issuer and time
 * checks; then the response and the one signed assertion as DOM elements. Only the assertion exactly as
 * the verified signature covers it is read afterwards.
 */
async function verifiedDocuments(saml: Configured, encoded: string): Promise<{ response: El; assertion: El }> {
  const idp = identityProvider(saml);
  let samlContent: string;
  try {
    const parsed = await serviceProvider(saml).parseLoginResponse(idp, 'post', { body: { SAMLResponse: encoded } });
    samlContent = parsed.samlContent;
  } catch (err) {
    throw explain(err);
  }
  const [verified, assertionXml] = samlify().SamlLib.verifySignature(samlContent, { metadata: idp.entityMeta });
  if (!verified || !assertionXml)
    throw new SamlLoginError('Signature validation fails: the response must carry exactly one signed assertion');
  const parser = new (xmldom().DOMParser)({
    errorHandler: { warning: () => undefined, error: () => undefined, fatalError: () => undefined },
  });
  const response = parser.parseFromString(samlContent, 'text/xml').documentElement as unknown as El;
  const assertion = parser.parseFromString(assertionXml, 'text/xml').documentElement as unknown as El;
  if (
    !response ||
    response.namespaceURI !== SAMLP ||
    response.localName !== 'Response' ||
    !assertion ||
    assertion.localName !== 'Assertion'
  ) {
    throw new SamlLoginError('the SAML response is not a valid SAML 2.0 response', 400);
  }
  refuseWrapping(response);
  return { response, assertion };
}

/**
 * Signature wrapping: only the verified assertion is read, but a response that carries another one
 * beside it (or an encrypted one, which this service does not decrypt) was not made by the IdP as it
 * stands, so it is refused rather than half-believed.
 */
function refuseWrapping(response: El): void {
  const assertions =
    response.getElementsByTagNameNS(SAML, 'Assertion').length +
    response.getElementsByTagNameNS(SAML, 'EncryptedAssertion').length;
  if (assertions !== 1 || children(response, SAML, 'Assertion').length !== 1) {
    throw new SamlLoginError(
      'Signature validation fails: the response must carry exactly one signed assertion, directly inside it',
    );
  }
}

/**
 * Whom the response is for and what it answers: Destination and the bearer SubjectConfirmationData's
 * Recipient are this ACS URL, the Issuer is SAML_ISSUER, InResponseTo is the request of this browser's
 * login state. The issuer, the NameID and the confirmation's NotOnOrAfter.
 */
function checkAddressing(
  saml: Configured,
  response: El,
  assertion: El,
  state: SamlState,
): { issuer: string; nameId: string; subjectEnd: number } {
  if (response.getAttribute('Destination') !== saml.callbackUrl)
    throw new SamlLoginError('the response is addressed to another service (its Destination is not this ACS URL)');
  const issuer = text(child(assertion, SAML, 'Issuer'));
  if (issuer !== saml.issuer)
    throw new SamlLoginError('the assertion does not come from the configured IdP (its Issuer is not SAML_ISSUER)');

  const subject = child(assertion, SAML, 'Subject');
  const nameId = text(child(subject, SAML, 'NameID'));
  const confirmations = subject
    ? children(subject, SAML, 'SubjectConfirmation').filter((c) => c.getAttribute('Method') === BEARER)
    : [];
  const data = child(confirmations[0], SAML, 'SubjectConfirmationData');
  if (!data) throw new SamlLoginError('the assertion has no bearer SubjectConfirmationData');
  if (data.getAttribute('Recipient') !== saml.callbackUrl)
    throw new SamlLoginError('the assertion is addressed to another service (its Recipient is not this ACS URL)');
  checkInResponseTo(data, response, state);
  const subjectEnd = time(data.getAttribute('NotOnOrAfter'));
  if (subjectEnd === undefined) throw new SamlLoginError("the assertion's SubjectConfirmationData has no NotOnOrAfter");
  return { issuer, nameId, subjectEnd };
}

/** An unsolicited response, or one that answers another browser's request, is refused. */
function checkInResponseTo(data: El, response: El, state: SamlState): void {
  const inResponseTo = data.getAttribute('InResponseTo') || response.getAttribute('InResponseTo') || '';
  if (!inResponseTo)
    throw new SamlLoginError("the response is unsolicited (no InResponseTo): sign in from this service's sign-in page");
  const responseInResponseTo = response.getAttribute('InResponseTo');
  if (inResponseTo !== state.requestId || (responseInResponseTo && responseInResponseTo !== state.requestId)) {
    throw new SamlLoginError(
      "the response answers another sign-in request (InResponseTo does not match this browser's request)",
    );
  }
}

/** Audience = SAML_AUDIENCE and the validity window (with clock skew); the end of the assertion's validity. */
function checkConditions(saml: Configured, assertion: El, subjectEnd: number, now: number): number {
  const conditions = child(assertion, SAML, 'Conditions');
  const audiences = conditions
    ? children(conditions, SAML, 'AudienceRestriction').flatMap((r) => children(r, SAML, 'Audience').map(text))
    : [];
  if (!audiences.includes(saml.audience))
    throw new SamlLoginError('the assertion is meant for another service (its Audience is not SAML_AUDIENCE)');
  const notBefore = time(conditions?.getAttribute('NotBefore'));
  const conditionsEnd = time(conditions?.getAttribute('NotOnOrAfter'));
  const end = Math.min(subjectEnd, conditionsEnd ?? subjectEnd);
  if (now - CLOCK_SKEW_MS >= end || (notBefore !== undefined && now + CLOCK_SKEW_MS < notBefore)) {
    throw new SamlLoginError('the assertion has expired or is not yet valid (NotBefore / NotOnOrAfter)');
  }
  return end;
}

/**
 * Every check of an IdP's POST to the ACS, in order: size and shape (one root, no DOCTYPE) before any
 * parser runs; the 60-second login state; the certificate's validity; samlify's schema validation,
 * signature (response or assertion, with SAML_CERT only), issuer and time checks; then this
 * service's own: Destination and SubjectConfirmationData Recipient = the ACS URL, InResponseTo = the
 * request ID of the state, Audience = SAML_AUDIENCE, NotOnOrAfter. The replay check (the assertion ID
 * seen before) is the caller's, against the shared database.
 */
export async function validateSamlResponse(
  saml: SamlConfig,
  encoded: unknown,
  state: SamlState | undefined,
  now = Date.now(),
): Promise<SamlIdentity> {
  const login = checkBeforeParsing(saml, encoded, state, now);
  const { response, assertion } = await verifiedDocuments(login.saml, login.encoded);
  const { issuer, nameId, subjectEnd } = checkAddressing(login.saml, response, assertion, login.state);
  const end = checkConditions(login.saml, assertion, subjectEnd, now);
  const assertionId = assertion.getAttribute('ID') ?? '';
  if (!assertionId) throw new SamlLoginError('the assertion has no ID', 400);
  const mapped = mapAttributes(attributesOf(assertion), nameId);
  if (!/^[^@\s]+@[^@\s]+$/.test(mapped.email))
    throw new SamlLoginError('the assertion carries no e-mail address (attribute email or mail, or an e-mail NameID)');
  return {
    issuer,
    nameId: nameId || mapped.email,
    ...mapped,
    assertionId,
    expiresAt: new Date(end + CLOCK_SKEW_MS),
    relayState: login.state.relayState,
  };
}
