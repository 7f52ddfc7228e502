// @internal The signature step shared by certificates (CRT1) and revocation lists (RVL1): the
// configured keys, checked once per key set, and the Ed25519 check of the exact received text.
import { base64urlDecode } from '@svc-licensing/cert-format';
import type { Ed25519Backend } from './_internal/backend-types.js';
import { publicKeyMap, type PublicKeys } from './public-keys.js';

// Key sets already checked (by identity), so a verifier called in a loop checks its keys once.
const checkedKeySets = new WeakMap<object, Readonly<Record<string, string>>>();

/**
 * @internal The keys as a map kid → base64url, or a `TypeError` (a programmer error) when they are
 * not one of the {@link PublicKeys} forms or a key is not 32 bytes of base64url.
 */
export function trustedKeys(publicKeys: PublicKeys): Readonly<Record<string, string>> {
  let keys = typeof publicKeys === 'object' && publicKeys !== null ? checkedKeySets.get(publicKeys) : undefined;
  if (keys !== undefined) return keys;
  const map = publicKeyMap(publicKeys);
  if (map === null) throw new TypeError('options.publicKeys must be an object of kid → base64url key, or the key list GET /products/{id}/keys returns');
  for (const [kid, text] of Object.entries(map)) {
    const bytes = typeof text === 'string' ? base64urlDecode(text) : undefined;
    if (bytes?.length !== 32) throw new TypeError(`options.publicKeys.${kid} must be base64url of a raw 32-byte Ed25519 public key`);
  }
  keys = map as Record<string, string>;
  checkedKeySets.set(publicKeys, keys);
  return keys;
}

const decodedKeys = new Map<string, Uint8Array>();

function publicKeyBytes(text: string): Uint8Array {
  let bytes = decodedKeys.get(text);
  if (bytes === undefined) {
    bytes = base64urlDecode(text)!;
    if (decodedKeys.size >= 64) decodedKeys.clear();
    decodedKeys.set(text, bytes);
  }
  return bytes;
}

/**
 * @internal Rule 2 of both formats: `kid` names a configured key and `signature` is its valid
 * Ed25519 signature of the exact `signingInput` text. Never throws or rejects for the input; a
 * boolean when the backend answers synchronously (node:crypto), so the hot path awaits nothing.
 */
export function signatureVerifies(
  keys: Readonly<Record<string, string>>,
  kid: unknown,
  signature: Uint8Array,
  signingInput: string,
  backend: Ed25519Backend,
): boolean | Promise<boolean> {
  if (typeof kid !== 'string' || !Object.hasOwn(keys, kid) || signature.length !== 64) return false;
  const publicKeyText = keys[kid]!;
  let answer: boolean | Promise<boolean>;
  try {
    answer = backend.verify(publicKeyBytes(publicKeyText), publicKeyText, signature, signingInput);
  } catch {
    return false;
  }
  return typeof answer === 'boolean' ? answer : answer.catch(() => false);
}
