const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const LOOKUP = /* @__PURE__ */ (() => {
  const table = new Int16Array(128).fill(-1);
  for (let i = 0; i < ALPHABET.length; i++) table[ALPHABET.charCodeAt(i)] = i;
  return table;
})();

/**
 * Encodes bytes as base64url without padding (RFC 4648 §5). Works in every runtime (no `Buffer`).
 *
 * @example
 * ```ts
 * base64urlEncode(new Uint8Array([251, 255])); // '-_8'
 * ```
 */
export function base64urlEncode(bytes: Uint8Array): string {
  let out = '';
  const n = bytes.length;
  let i = 0;
  for (; i + 2 < n; i += 3) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += ALPHABET[v >> 18]! + ALPHABET[(v >> 12) & 63]! + ALPHABET[(v >> 6) & 63]! + ALPHABET[v & 63]!;
  }
  if (n - i === 1) {
    const v = bytes[i]! << 16;
    out += ALPHABET[v >> 18]! + ALPHABET[(v >> 12) & 63]!;
  } else if (n - i === 2) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += ALPHABET[v >> 18]! + ALPHABET[(v >> 12) & 63]! + ALPHABET[(v >> 6) & 63]!;
  }
  return out;
}

/**
 * Decodes strict base64url without padding: only `A-Z a-z 0-9 - _`, no `=`, no whitespace, and the
 * unused low bits of the last character must be zero (one text per byte string). Returns `undefined`
 * for anything else; never throws.
 *
 * @example
 * ```ts
 * base64urlDecode('-_8'); // Uint8Array [251, 255]
 * base64urlDecode('-_8='); // undefined (padding is not accepted)
 * ```
 */
export function base64urlDecode(text: string): Uint8Array | undefined {
  if (typeof text !== 'string') return undefined;
  const n = text.length;
  const rest = n % 4;
  if (rest === 1) return undefined;
  const out = new Uint8Array(((n - rest) / 4) * 3 + (rest === 0 ? 0 : rest - 1));
  let o = 0;
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    const v = c < 128 ? LOOKUP[c]! : -1;
    if (v < 0) return undefined;
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  if ((acc & ((1 << bits) - 1)) !== 0) return undefined;
  return out;
}
