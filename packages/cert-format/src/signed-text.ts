import { base64urlDecode } from './base64url.js';
import { utf8Decode } from './_internal/utf8.js';

/** A `<prefix>.<payload>.<signature>` text split and decoded, its signature not checked. */
export type DecodedSignedText =
  | { ok: true; payload: Record<string, unknown>; signingInput: string; signature: Uint8Array; kid: unknown }
  | { ok: false };

const EMPTY = new Uint8Array(0);

/**
 * Rule 1 of CRT1 and RVL1 (`decodeCertificate`, `decodeRevocationList`): exactly three
 * dot-separated parts, the first `prefix`, and a payload part that `decodePayload` reads as strict
 * base64url of UTF-8 JSON describing an object; anything else gives `{ ok: false }`, and it never
 * throws. The signing input is the received text up to the second dot, never re-serialized.
 */
export function decodeSignedText(text: unknown, prefix: string, decodePayload: (part: string) => Uint8Array | undefined): DecodedSignedText {
  if (typeof text !== 'string') return { ok: false };
  const first = text.indexOf('.');
  const second = first < 0 ? -1 : text.indexOf('.', first + 1);
  if (second < 0 || text.indexOf('.', second + 1) >= 0) return { ok: false };
  if (first !== prefix.length || !text.startsWith(prefix)) return { ok: false };
  const payloadBytes = decodePayload(text.slice(first + 1, second));
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
