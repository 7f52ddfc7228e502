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
  /**
   * Like {@link CertificateSigner.sign}, but the Ed25519 signature is computed in libuv's thread
   * pool, so a server keeps serving other requests meanwhile and uses every core for signing. The
   * result is the same text `sign` returns (Ed25519 is deterministic). A payload error rejects.
   */
  signAsync(payload: CertificatePayload): Promise<string>;
}

/**
 * Creates a signer for one Ed25519 private key (raw 32-byte seed or `{ pkcs8 }` DER). The key is
 * imported into `node:crypto` once; each `sign` is one payload encode plus one Ed25519 signature
 * (`signAsync`: the same, with the signature computed off the event loop).
 * The payload's `kid` must name this key: the signer does not know kids.
 *
 * @example
 * ```ts
 * import { createCertificateSigner } from '@svc-licensing/cert-format/sign';
 * const signer = createCertificateSigner(seed);
 * const certificate = signer.sign(payload); // 'CRT1.eyJ2Ijox....<86 chars>'
 * const same = await signer.signAsync(payload); // === certificate, signed in the thread pool
 * ```
 */
export function createCertificateSigner(privateKey: SigningPrivateKey): CertificateSigner {
  const key = importPrivateKey(privateKey);
  // Scratch buffers reused across signs, so a sign allocates no intermediate byte buffers:
  // JSON → UTF-8 → base64url text → ASCII bytes to sign. Only the synchronous steps use them.
  let jsonBytes = Buffer.allocUnsafe(2048);
  let inputBytes = Buffer.allocUnsafe(4096);
  /** The text the signature covers, `CRT1.<base64url payload>`, after checking the payload. */
  const signingInputOf = (payload: CertificatePayload): string => {
    assertCertificatePayload(payload);
    const json = payloadJson(payload);
    if (json.length * 3 > jsonBytes.length) jsonBytes = Buffer.allocUnsafe(json.length * 3);
    const jsonLength = jsonBytes.write(json, 0, 'utf8');
    return CERTIFICATE_PREFIX + jsonBytes.toString('base64url', 0, jsonLength);
  };
  return {
    sign(payload) {
      const signingInput = signingInputOf(payload);
      if (signingInput.length > inputBytes.length) inputBytes = Buffer.allocUnsafe(signingInput.length * 2);
      const inputLength = inputBytes.write(signingInput, 0, 'latin1');
      const signature = nodeSign(null, inputBytes.subarray(0, inputLength), key);
      return `${signingInput}.${signature.toString('base64url')}`;
    },
    signAsync(payload) {
      let signingInput: string;
      try {
        signingInput = signingInputOf(payload);
      } catch (error) {
        return Promise.reject(error);
      }
      // Its own input buffer: the scratch buffers are reused by the next call before this one ends.
      const input = Buffer.from(signingInput, 'latin1');
      return new Promise((resolve, reject) => {
        nodeSign(null, input, key, (error, signature) => {
          if (error) reject(error);
          else resolve(`${signingInput}.${signature.toString('base64url')}`);
        });
      });
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
