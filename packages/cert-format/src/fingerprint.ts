import { CertFormatError } from './errors.js';
import { sha256Hex } from './_internal/sha256.js';

/**
 * The machine fingerprint of the spec: 64 lowercase hex characters, the SHA-256 of the UTF-8 text
 * `svc:<productId>:<rawMachineId>`. Synchronous, in every runtime (node:crypto's hash in Node, a
 * JavaScript one elsewhere).
 *
 * @example
 * ```ts
 * machineFingerprint('prd_123', 'machine-guid-from-the-os'); // 'c0ffee...' (64 hex)
 * ```
 */
export function machineFingerprint(productId: string, rawMachineId: string): string {
  if (typeof productId !== 'string' || typeof rawMachineId !== 'string') {
    throw new CertFormatError('invalid_argument', 'productId and rawMachineId must be strings');
  }
  return sha256Hex(`svc:${productId}:${rawMachineId}`);
}

/**
 * True for a well-formed fingerprint: exactly 64 lowercase hex characters.
 *
 * @example
 * ```ts
 * isFingerprint(machineFingerprint('prd_1', 'm')); // true
 * isFingerprint('ABC'); // false
 * ```
 */
export function isFingerprint(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);
}
