import { sign as nodeSign } from 'node:crypto';
import { encodeRevocationList } from './revocation-encode.js';
import type { RevocationListInput } from './revocation-list.js';
import { importPrivateKey, type SigningPrivateKey } from './signing-keys.js';

/**
 * Encodes and signs an RVL1 revocation list with the product's active signing key (raw 32-byte seed
 * or `{ pkcs8 }` DER): `RVL1.<payload>.<signature>`, the Ed25519 signature over the ASCII bytes of
 * `RVL1.<payload>` (see `encodeRevocationList` for what the encoding does with the entries). The
 * input's `kid` must name this key: the signer does not know kids. Node only.
 *
 * @example
 * ```ts
 * import { signRevocationList } from '@svc-licensing/cert-format/sign';
 * const list = signRevocationList(
 *   { kid: 'k1', product: 'prd_123', seq: 8, issuedAt: now, licenses: [{ license: 'lic_456', until }], activations: [] },
 *   seed,
 * ); // 'RVL1.eyJ2IjoxLCJraWQiOiJrMSIs....<86 chars>'
 * ```
 */
export function signRevocationList(input: RevocationListInput, privateKey: SigningPrivateKey): string {
  const key = importPrivateKey(privateKey);
  const signingInput = encodeRevocationList(input);
  return `${signingInput}.${nodeSign(null, Buffer.from(signingInput, 'latin1'), key).toString('base64url')}`;
}
