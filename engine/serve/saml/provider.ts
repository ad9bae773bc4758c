import type * as Samlify from 'samlify';
import type { SamlConfig } from '../../core/config';
import { onFirstUse } from '../../core/on-first-use';
import { validateSamlSchema } from './schema-validator';

/**
 * samlify's two ends as this service sees them: itself as the service provider (entity ID =
 * SAML_AUDIENCE, ACS = {NEXTAUTH_URL}/api/auth/saml/acs, NameID format emailAddress) and the IdP of
 * the configuration, whose signing certificate (SAML_CERT) is the only one a response may be signed
 * with. Messages are validated against the SAML schemas by xmllint compiled to JavaScript (no Java,
 * no native build), in a worker thread (schema-validator.ts).
 */
export const EMAIL_NAMEID = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';

/** Tolerated clock difference with the IdP for NotBefore / NotOnOrAfter, in milliseconds. */
export const CLOCK_SKEW_MS = 30_000;

/** samlify, loaded at the first SAML request: most deployments never sign in by SAML. */
export const samlify = onFirstUse<typeof Samlify>('samlify');

let validatorSet = false;
function ensureValidator(): void {
  if (validatorSet) return;
  samlify().setSchemaValidator({ validate: validateSamlSchema });
  validatorSet = true;
}

export type Configured = SamlConfig & { entryPoint: string; issuer: string; cert: string; audience: string };
export const isConfigured = (saml: SamlConfig): saml is Configured => saml.missing.length === 0;

// One entity of each kind per configuration (samlify builds metadata on construction).
const sps = new WeakMap<SamlConfig, Samlify.ServiceProviderInstance>();
const idps = new WeakMap<SamlConfig, Samlify.IdentityProviderInstance>();

export function serviceProvider(saml: SamlConfig): Samlify.ServiceProviderInstance {
  ensureValidator();
  let sp = sps.get(saml);
  if (!sp) sps.set(saml, (sp = newServiceProvider(saml)));
  return sp;
}

export function identityProvider(saml: Configured): Samlify.IdentityProviderInstance {
  ensureValidator();
  let idp = idps.get(saml);
  if (!idp) idps.set(saml, (idp = newIdentityProvider(saml)));
  return idp;
}

function newServiceProvider(saml: SamlConfig): Samlify.ServiceProviderInstance {
  return samlify().ServiceProvider({
    entityID: saml.audience ?? saml.callbackUrl,
    authnRequestsSigned: false,
    wantAssertionsSigned: true,
    nameIDFormat: [EMAIL_NAMEID],
    assertionConsumerService: [{ Binding: POST, Location: saml.callbackUrl }],
    clockDrifts: [-CLOCK_SKEW_MS, CLOCK_SKEW_MS],
  });
}

function newIdentityProvider(saml: Configured): Samlify.IdentityProviderInstance {
  return samlify().IdentityProvider({
    entityID: saml.issuer,
    signingCert: saml.cert,
    wantAuthnRequestsSigned: false,
    nameIDFormat: [EMAIL_NAMEID],
    singleSignOnService: [{ Binding: REDIRECT, Location: saml.entryPoint }],
  });
}

/** This service provider's metadata, to register at the IdP. */
export const serviceProviderMetadata = (saml: SamlConfig): string => serviceProvider(saml).getMetadata();

/** The IdP URL that carries a new AuthnRequest (HTTP-Redirect binding), and the request's ID. */
export function loginRedirect(saml: Configured, relayState: string): { url: string; requestId: string } {
  const r = serviceProvider(saml).createLoginRequest(identityProvider(saml), 'redirect', { relayState });
  return { url: r.context, requestId: r.id };
}
