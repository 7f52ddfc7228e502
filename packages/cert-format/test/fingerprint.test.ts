import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isFingerprint, machineFingerprint } from '@svc-licensing/cert-format';

describe('machineFingerprint', () => {
  it('is the lowercase hex SHA-256 of svc:<product>:<raw machine id>', () => {
    const expected = createHash('sha256').update('svc:prd_abc:4C4C4544-0042-3510-8052-B4C04F4E3132').digest('hex');
    expect(machineFingerprint('prd_abc', '4C4C4544-0042-3510-8052-B4C04F4E3132')).toBe(expected);
    expect(isFingerprint(expected)).toBe(true);
  });

  it('hashes non-ASCII machine IDs as UTF-8', () => {
    expect(machineFingerprint('prd_abc', 'Zoë-PC')).toBe(createHash('sha256').update('svc:prd_abc:Zoë-PC', 'utf8').digest('hex'));
  });

  it('depends on the product, so one machine has a different fingerprint per product', () => {
    expect(machineFingerprint('prd_a', 'm1')).not.toBe(machineFingerprint('prd_b', 'm1'));
  });

  it('recognizes only 64 lowercase hex characters as a fingerprint', () => {
    expect(isFingerprint('A'.repeat(64))).toBe(false);
    expect(isFingerprint('a'.repeat(63))).toBe(false);
    expect(isFingerprint(null)).toBe(false);
  });
});
