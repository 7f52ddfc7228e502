import { hash } from 'node:crypto';

// The `node` build's SHA-256 (chosen by the package's `node` export condition, never bundled for
// browsers): node:crypto's native hash, because the JavaScript one cost 3-5% of a validate on the
// server. Same digests as sha256.ts; the dual-build test compares the two builds. The one-shot
// `hash` (Node 20.12+), not a `createHash` object per call: half the CPU of a license key's hash.

/** Lowercase hex SHA-256 of the UTF-8 bytes of `text`. */
export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}
