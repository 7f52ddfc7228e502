import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { basePayload, T0 } from '../../../test-vectors/fixtures.js';
import { isBorrowing, LATE_RECEIPT_SECONDS, LeaseTiming, leaseElapsedMs, leaseNowSeconds, leaseReport, parseAnswerLease, receiveLease } from '../src/client-lease.js';
import { emptyLicenseState, type StoredLease } from '../src/storage.js';

// How a floating lease is timed from its receipt (client-lease.ts): pure functions, fake clocks.
const answer = { leaseSeconds: 900, leaseExpiresAt: T0 + 900, borrowedUntil: null };
const times = { issuedAt: T0, expiresAt: T0 + 900 };
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

describe('the lease object of an answer', () => {
  it('reads leaseSeconds and the two timestamps as Unix seconds', () => {
    expect(parseAnswerLease({ leaseSeconds: 900, leaseExpiresAt: '2026-01-01T00:15:00Z', borrowedUntil: null })).toEqual(answer);
    expect(parseAnswerLease({ leaseSeconds: 900, leaseExpiresAt: '2026-01-08T00:00:00Z', borrowedUntil: '2026-01-08T00:00:00Z' })).toEqual({
      leaseSeconds: 900,
      leaseExpiresAt: T0 + 7 * 86_400,
      borrowedUntil: T0 + 7 * 86_400,
    });
  });

  it('reads no lease (the certificate is then timed by the wall clock) from an absent or malformed object', () => {
    const good = { leaseSeconds: 900, leaseExpiresAt: '2026-01-01T00:15:00Z', borrowedUntil: null };
    for (const bad of [undefined, null, 'lease', { ...good, leaseSeconds: 0 }, { ...good, leaseSeconds: 1.5 }, { ...good, leaseExpiresAt: 1767226500 }, { ...good, leaseExpiresAt: '2026-01-01 00:15:00' }, { ...good, borrowedUntil: 'soon' }, { ...good, borrowedUntil: undefined }]) {
      expect(parseAnswerLease(bad), JSON.stringify(bad)).toBeNull();
    }
  });
});

describe('receiving a floating certificate', () => {
  it('times a new lease from now on this machine, whatever its clock says about the server time', () => {
    for (const offset of [0, -DAY_MS, DAY_MS - 1, 5 * HOUR_MS, -30 * DAY_MS]) {
      const wall = T0 * 1000 + offset;
      const lease = receiveLease(null, 0, answer, times, wall);
      expect(lease).toEqual({ ...answer, issuedAt: T0, receivedAt: wall, ranMs: 0 });
      expect(leaseNowSeconds(lease, leaseElapsedMs(lease, 0, wall))).toBe(T0); // evaluated at its own issuedAt
    }
  });

  it('keeps the held receipt for a new certificate of the same issuedAt, so replayed answers of one second cannot restart the lease', () => {
    const held: StoredLease = { ...answer, issuedAt: T0, receivedAt: T0 * 1000 + 5, ranMs: 400_000 };
    const borrowed = { ...answer, leaseExpiresAt: T0 + 86_400, borrowedUntil: T0 + 86_400 };
    expect(receiveLease(held, 412_000, borrowed, { issuedAt: T0, expiresAt: T0 + 86_400 }, T0 * 1000 + 600_000)).toEqual({
      ...borrowed,
      issuedAt: T0,
      receivedAt: T0 * 1000 + 5,
      ranMs: 412_000,
    });
    // A later issuedAt is a new lease.
    expect(receiveLease(held, 412_000, answer, { issuedAt: T0 + 1, expiresAt: T0 + 901 }, T0 * 1000 + 600_000)).toMatchObject({ receivedAt: T0 * 1000 + 600_000, ranMs: 0 });
  });

  it('times a receipt more than a day after the certificate expired (a replayed old answer, or a clock over a day fast) by the wall clock: it arrives expired', () => {
    const lateAt = (times.expiresAt + LATE_RECEIPT_SECONDS) * 1000;
    const late = receiveLease(null, 0, answer, times, lateAt);
    expect(late.receivedAt).toBe(T0 * 1000);
    expect(leaseNowSeconds(late, leaseElapsedMs(late, 0, lateAt))).toBeGreaterThanOrEqual(times.expiresAt);
    const justInTime = receiveLease(null, 0, answer, times, lateAt - 1);
    expect(leaseNowSeconds(justInTime, leaseElapsedMs(justInTime, 0, lateAt - 1))).toBe(T0);
  });
});

describe('the time a lease has gone by', () => {
  const lease: StoredLease = { ...answer, issuedAt: T0, receivedAt: 50_000_000, ranMs: 0 };

  it('is the larger of the run time and the wall clock since receipt: a frozen or set-back wall clock never makes it younger than the run time', () => {
    fc.assert(
      fc.property(fc.nat(10 * DAY_MS), fc.integer({ min: -10 * DAY_MS, max: 10 * DAY_MS }), (ran, wallSinceReceipt) => {
        const elapsed = leaseElapsedMs(lease, ran, lease.receivedAt + wallSinceReceipt);
        expect(elapsed).toBeGreaterThanOrEqual(ran);
        expect(elapsed).toBeGreaterThanOrEqual(wallSinceReceipt);
        expect(elapsed).toBe(Math.max(ran, wallSinceReceipt, 0));
      }),
    );
  });

  it('counts a machine asleep (run time stopped, wall clock on) by the wall clock', () => {
    expect(leaseElapsedMs(lease, 10_000, lease.receivedAt + 2 * HOUR_MS)).toBe(2 * HOUR_MS);
  });
});

describe('the lease a check reports', () => {
  it('on a machine plan: not floating, ending at the certificate expiresAt', () => {
    expect(leaseReport(basePayload(), null, 0, 123)).toEqual({ floating: false, endsAt: basePayload().expiresAt * 1000, borrowedUntil: null, leaseSeconds: null });
  });

  it('on a floating plan: the lease end and the borrow end on this machine clock, right for the time gone by even when the clock is off', () => {
    const payload = basePayload({ refreshAfter: T0 + 300, expiresAt: T0 + 900 });
    const lease: StoredLease = { ...answer, issuedAt: T0, receivedAt: 0, ranMs: 0 };
    // The machine's clock reads 1000 s (its own idea of time); 100 s of the lease are gone: 800 s left.
    expect(leaseReport(payload, lease, 100_000, 1_000_000)).toEqual({ floating: true, endsAt: 1_800_000, borrowedUntil: null, leaseSeconds: 900 });
    const borrowedPayload = basePayload({ refreshAfter: T0 + 86_400, expiresAt: T0 + 3 * 86_400 });
    const borrowed: StoredLease = { ...lease, leaseExpiresAt: T0 + 3 * 86_400, borrowedUntil: T0 + 3 * 86_400 };
    expect(leaseReport(borrowedPayload, borrowed, DAY_MS, 7_000)).toMatchObject({ endsAt: 7_000 + 2 * DAY_MS, borrowedUntil: 7_000 + 2 * DAY_MS });
    expect(isBorrowing(borrowed, 3 * DAY_MS - 1)).toBe(true);
    // Once the borrow's end has passed, no borrow is reported.
    expect(isBorrowing(borrowed, 3 * DAY_MS)).toBe(false);
    expect(leaseReport(borrowedPayload, borrowed, 3 * DAY_MS, 7_000).borrowedUntil).toBeNull();
  });
});

describe('the monotonic anchor of a process', () => {
  const certificate = 'CRT1.a.b';
  const stored = (ranMs: number) => ({ ...emptyLicenseState('prd_1'), certificate, lease: { ...answer, issuedAt: T0, receivedAt: 0, ranMs } });

  it('counts run time from the anchor on the monotonic clock only', () => {
    let mono = 1_000;
    const timing = new LeaseTiming(() => mono);
    timing.anchor(certificate, 0);
    mono += 250_000;
    expect(timing.ranMs(stored(0))).toBe(250_000);
  });

  it('starts a certificate it did not receive (an earlier run) at its saved run time, and takes a larger one saved by another process', () => {
    let mono = 77;
    const timing = new LeaseTiming(() => mono);
    expect(timing.ranMs(stored(600_000))).toBe(600_000);
    mono += 1_000;
    expect(timing.ranMs(stored(600_000))).toBe(601_000);
    expect(timing.ranMs(stored(700_000))).toBe(700_000);
    // Another certificate: anchored afresh at its own saved run time.
    expect(timing.ranMs({ ...stored(5_000), certificate: 'CRT1.c.d' })).toBe(5_000);
  });

  it('is 0 without a lease', () => {
    expect(new LeaseTiming(() => 5).ranMs({ ...emptyLicenseState('prd_1'), certificate })).toBe(0);
  });
});
