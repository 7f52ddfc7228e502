import { base64urlDecode } from './base64url.js';
import { utf8Decode } from './_internal/utf8.js';

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

const EMPTY = new Uint8Array(0);

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
  if (typeof text !== 'string') return { ok: false };
  const first = text.indexOf('.');
  const second = first < 0 ? -1 : text.indexOf('.', first + 1);
  if (second < 0 || text.indexOf('.', second + 1) >= 0) return { ok: false };
  if (text.slice(0, first) !== 'CRT1') return { ok: false };
  const payloadBytes = base64urlDecode(text.slice(first + 1, second));
  if (payloadBytes === undefined) return { ok: false };
  const json = utf8Decode(payloadBytes);
  if (json === undefined) return { ok: false };
  let payload: unknown;
  try {
    payload = JSON.parse(json);
  } catch {
    return { ok: false };
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return { ok: false };
  const record = payload as Record<string, unknown>;
  return {
    ok: true,
    payload: record,
    signingInput: text.slice(0, second),
    signature: base64urlDecode(text.slice(second + 1)) ?? EMPTY,
    kid: Object.hasOwn(record, 'kid') ? record.kid : undefined,
  };
}
