import { sign as nodeSign } from 'node:crypto';
import { assertCertificatePayload, CERTIFICATE_PREFIX, payloadJson, type CertificatePayload } from './payload.js';
import { importPrivateKey, type SigningPrivateKey } from './signing-keys.js';

/** Signs certificate payloads with one private key, imported once. */
export interface CertificateSigner {
  /**
   * Returns the certificate text `CRT1.<payload>.<signature>`. Throws `CertFormatError`
   * (`invalid_payload`) when a payload field is missing or has the wrong type.
   */
  sign(payload: CertificatePayload): string;
}

/**
 * Creates a signer for one Ed25519 private key (raw 32-byte seed or `{ pkcs8 }` DER). The key is
 * imported into `node:crypto` once; each `sign` is one payload encode plus one Ed25519 signature.
 * The payload's `kid` must name this key: the signer does not know kids.
 *
 * @example
 * ```ts
 * import { createCertificateSigner } from '@svc-licensing/cert-format/sign';
 * const signer = createCertificateSigner(seed);
 * const certificate = signer.sign(payload); // 'CRT1.eyJ2Ijox....<86 chars>'
 * ```
 */
export function createCertificateSigner(privateKey: SigningPrivateKey): CertificateSigner {
  const key = importPrivateKey(privateKey);
  return {
    sign(payload) {
      assertCertificatePayload(payload);
      const signingInput = CERTIFICATE_PREFIX + Buffer.from(payloadJson(payload), 'utf8').toString('base64url');
      const signature = nodeSign(null, Buffer.from(signingInput, 'latin1'), key);
      return `${signingInput}.${signature.toString('base64url')}`;
    },
  };
}

/**
 * One-shot signing: imports the key, signs one payload. Prefer {@link createCertificateSigner} when
 * signing more than once.
 *
 * @example
 * ```ts
 * import { signCertificate } from '@svc-licensing/cert-format/sign';
 * const certificate = signCertificate(payload, { pkcs8: der });
 * ```
 */
export function signCertificate(payload: CertificatePayload, privateKey: SigningPrivateKey): string {
  return createCertificateSigner(privateKey).sign(payload);
}
