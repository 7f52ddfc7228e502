// Base64url for the large texts of revocation lists (up to about 2 MB): the same strict format as
// base64url.ts (no padding, no whitespace, unused low bits zero), through the runtime's native
// codecs, which are several times faster than a JavaScript loop on megabytes.

// Values of the characters whose unused low bits must be zero at the end of the text.
const VALUE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** base64url (no padding) of `bytes`, through btoa (Node 16+, every browser). */
export function encodeBulk(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000) as unknown as number[]);
  }
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

type FromBase64 = (text: string, options: { alphabet: 'base64url'; lastChunkHandling: 'loose' }) => Uint8Array;
const fromBase64 = /* @__PURE__ */ (() => (Uint8Array as unknown as { fromBase64?: FromBase64 }).fromBase64)();

/**
 * Strict base64url decoding through `Uint8Array.fromBase64` (Chromium 140+, Firefox 133+, Safari
 * 18.2+), or null where the runtime lacks it (then the caller uses the JavaScript decoder). The
 * decoder returns undefined for text the strict format refuses. The native decoder throws on every
 * character outside the base64url alphabet except ASCII whitespace and final `=` padding, which it
 * skips; a skipped character always makes the output shorter than 3/4 of the text's length, so an
 * exact length check refuses them without scanning megabytes with a regular expression.
 */
export const decodeNative: ((text: string) => Uint8Array | undefined) | null =
  typeof fromBase64 !== 'function'
    ? null
    : (text) => {
        const rest = text.length % 4;
        if (rest === 1) return undefined;
        if (rest !== 0 && (VALUE.indexOf(text[text.length - 1]!) & (rest === 2 ? 15 : 3)) !== 0) return undefined;
        let bytes: Uint8Array;
        try {
          bytes = fromBase64.call(Uint8Array, text, { alphabet: 'base64url', lastChunkHandling: 'loose' });
        } catch {
          return undefined;
        }
        return bytes.length === Math.floor((text.length * 3) / 4) ? bytes : undefined;
      };
