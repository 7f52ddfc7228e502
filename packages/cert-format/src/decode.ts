import { base64urlDecode } from './base64url.js';
import { decodeSignedText } from './signed-text.js';

/** Result of {@link decodeCertificate}. */
export type DecodedCertificate =
  | {
      ok: true;
      /** The parsed payload object, not yet checked for field types. */
      payload: Record<string, unknown>;
      /** The exact received text `CRT1.<payload part>`: what the signature covers. */
      signingInput: string;
      /** The decoded signature; empty when the signature part is not valid base64url. */
      signature: Uint8Array;
      /** `payload.kid` as received (any JSON type). */
      kid: unknown;
    }
  | { ok: false };

/**
 * Splits and decodes a CRT1 certificate without checking the signature (rule 1 of the spec's
 * verification outcomes): exactly three dot-separated parts, the first `CRT1`, and a payload part
 * that is strict base64url of UTF-8 JSON describing an object. Anything else gives `{ ok: false }`;
 * it never throws, whatever the input. The signing input is the received text, never re-serialized.
 *
 * @example
 * ```ts
 * const decoded = decodeCertificate(text);
 * if (decoded.ok) console.log(decoded.payload.license, decoded.kid);
 * ```
 */
export function decodeCertificate(text: unknown): DecodedCertificate {
  return decodeSignedText(text, 'CRT1', base64urlDecode);
}
