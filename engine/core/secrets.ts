import { hkdfSync, timingSafeEqual } from 'node:crypto';

/**
 * Secrets compared and keys derived, the one way the engine does either.
 *
 * `sameSecret`: whether a secret someone sent equals the one we hold, in time that does not depend on
 * where they first differ (a plain `===` stops at the first wrong character, so its timing tells an
 * attacker how much of a guess was right). Secrets of different lengths are unequal at once: their
 * length is the only thing the timing gives away.
 */
export function sameSecret(given: string | Uint8Array, expected: string | Uint8Array): boolean {
  const a = typeof given === 'string' ? Buffer.from(given, 'utf8') : given;
  const b = typeof expected === 'string' ? Buffer.from(expected, 'utf8') : expected;
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A 32-byte key for one purpose, derived from a shared secret (HKDF-SHA256, info "platform <purpose>"),
 * so a value signed for one purpose (a session cookie, say) never passes for another (an API JWT, the
 * SAML login state). Derivation costs some microseconds: the few keys in use are kept.
 */
const derived = new Map<string, Uint8Array>();
export function purposeKey(secret: string, purpose: string): Uint8Array {
  const id = `${purpose}\u0000${secret}`;
  let key = derived.get(id);
  if (!key) {
    key = new Uint8Array(hkdfSync('sha256', secret, '', `platform ${purpose}`, 32));
    if (derived.size > 16) derived.clear();
    derived.set(id, key);
  }
  return key;
}
