import { describe, expect, it } from 'vitest';
import { CertFormatError, certificateTimes } from '@svc-licensing/cert-format';

const issuedAt = 1_767_225_600;
const DAY = 86_400;

describe('certificateTimes', () => {
  it('refreshes one day after issue', () => {
    expect(certificateTimes({ kind: 'perpetual', issuedAt, validUntil: null, offlineDays: 30 }).refreshAfter).toBe(issuedAt + DAY);
  });

  it('caps a subscription or trial at validUntil when it comes before the offline bound', () => {
    for (const kind of ['subscription', 'trial'] as const) {
      expect(certificateTimes({ kind, issuedAt, validUntil: issuedAt + 3 * DAY, offlineDays: 7 }).expiresAt).toBe(issuedAt + 3 * DAY);
      expect(certificateTimes({ kind, issuedAt, validUntil: issuedAt + 30 * DAY, offlineDays: 7 }).expiresAt).toBe(issuedAt + 7 * DAY);
    }
  });

  it('gives a perpetual license the offline bound only', () => {
    expect(certificateTimes({ kind: 'perpetual', issuedAt, validUntil: issuedAt + DAY, offlineDays: 7 }).expiresAt).toBe(issuedAt + 7 * DAY);
  });

  it('uses the offline bound for a subscription without validUntil', () => {
    expect(certificateTimes({ kind: 'subscription', issuedAt, validUntil: null, offlineDays: 2 }).expiresAt).toBe(issuedAt + 2 * DAY);
  });

  it('refuses non-integer times and offlineDays below 1 with invalid_argument', () => {
    const bad = [
      { kind: 'trial', issuedAt: 1.5, validUntil: null, offlineDays: 7 },
      { kind: 'trial', issuedAt, validUntil: null, offlineDays: 0 },
      { kind: 'trial', issuedAt, validUntil: 2.5, offlineDays: 7 },
      { kind: 'lifetime', issuedAt, validUntil: null, offlineDays: 7 },
    ] as const;
    for (const input of bad) {
      let error: unknown;
      try {
        certificateTimes(input as never);
      } catch (e) {
        error = e;
      }
      expect(CertFormatError.is(error) && error.code).toBe('invalid_argument');
    }
  });
});
