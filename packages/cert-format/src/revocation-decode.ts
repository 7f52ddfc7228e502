import { base64urlDecode } from './base64url.js';
import { decodeSignedText } from './signed-text.js';
import { decodeNative } from './_internal/base64url-bulk.js';

/** Result of {@link decodeRevocationList}. */
export type DecodedRevocationList =
  | {
      ok: true;
      /** The parsed payload object, not yet checked for field types (see `parseRevocationPayload`). */
      payload: Record<string, unknown>;
      /** The exact received text `RVL1.<payload part>`: what the signature covers. */
      signingInput: string;
      /** The decoded signature; empty when the signature part is not valid base64url. */
      signature: Uint8Array;
      /** `payload.kid` as received (any JSON type). */
      kid: unknown;
    }
  | { ok: false };

const decodeLarge = decodeNative ?? base64urlDecode;

/**
 * Splits and decodes an RVL1 revocation list without checking the signature (rule 1 of
 * docs/rvl1.md, as for CRT1 certificates): exactly three dot-separated parts, the first `RVL1`, and
 * a payload part that is strict base64url of UTF-8 JSON describing an object. Anything else gives
 * `{ ok: false }`; it never throws, whatever the input. The signing input is the received text.
 *
 * @example
 * ```ts
 * const decoded = decodeRevocationList(text);
 * if (decoded.ok) console.log(decoded.payload.seq, decoded.kid);
 * ```
 */
export function decodeRevocationList(text: unknown): DecodedRevocationList {
  return decodeSignedText(text, 'RVL1', decodeLarge);
}
