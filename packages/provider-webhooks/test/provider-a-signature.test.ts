import { describe, expect, it } from 'vitest';
import { readFixture } from '../../../fixtures/index.js';
import { signProviderA, verifyProviderASignature } from '../src/index.js';

const secret = 'pdl_ntfset_01hv8_test_secret';
const rawBody = readFixture('provider_a', 'transaction.completed');
const now = new Date('2024-04-12T10:18:50Z');
const ts = Math.floor(now.getTime() / 1000);
const h1 = (value: string) => /h1=([0-9a-f]+)/.exec(value)![1]!;

describe('verifyProviderASignature', () => {
  it('accepts the header provider_a computes over `<ts>:<raw body>`', () => {
    const header = signProviderA(rawBody, secret, ts);
    expect(header).toMatch(/^ts=\d+;h1=[0-9a-f]{64}$/);
    expect(verifyProviderASignature({ rawBody, header, secret, now })).toEqual({ ok: true });
  });

  it('accepts the same bytes given as a Uint8Array, and `now` as epoch milliseconds', () => {
    const header = signProviderA(rawBody, secret, ts);
    const bytes = new TextEncoder().encode(rawBody);
    expect(verifyProviderASignature({ rawBody: bytes, header, secret, now: now.getTime() })).toEqual({ ok: true });
  });

  it('accepts ts up to 5 minutes away in either direction and refuses one second more', () => {
    for (const offset of [-300, 300]) {
      const header = signProviderA(rawBody, secret, ts + offset);
      expect(verifyProviderASignature({ rawBody, header, secret, now })).toEqual({ ok: true });
    }
    for (const offset of [-301, 301, -86_400]) {
      const header = signProviderA(rawBody, secret, ts + offset);
      expect(verifyProviderASignature({ rawBody, header, secret, now })).toEqual({ ok: false, reason: 'timestamp_out_of_range' });
    }
  });

  it('honours a custom tolerance', () => {
    const header = signProviderA(rawBody, secret, ts - 60);
    expect(verifyProviderASignature({ rawBody, header, secret, now, toleranceSeconds: 30 })).toEqual({
      ok: false,
      reason: 'timestamp_out_of_range',
    });
  });

  it('accepts any of several h1 values (secret rotation), in any position', () => {
    const good = h1(signProviderA(rawBody, secret, ts));
    const old = h1(signProviderA(rawBody, 'the-previous-secret', ts));
    for (const header of [`ts=${ts};h1=${old};h1=${good}`, `ts=${ts};h1=${good};h1=${old}`, `h1=${old}; ts=${ts}; h1=${good}`]) {
      expect(verifyProviderASignature({ rawBody, header, secret, now })).toEqual({ ok: true });
    }
    expect(verifyProviderASignature({ rawBody, header: `ts=${ts};h1=${old};h1=${old}`, secret, now })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('refuses a signature made with another secret', () => {
    const header = signProviderA(rawBody, 'another-secret', ts);
    expect(verifyProviderASignature({ rawBody, header, secret, now })).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('refuses a signature of another body or another timestamp', () => {
    const other = signProviderA(rawBody.replace('"quantity": 1', '"quantity": 9'), secret, ts);
    expect(verifyProviderASignature({ rawBody, header: other, secret, now })).toEqual({ ok: false, reason: 'signature_mismatch' });
    const moved = `ts=${ts + 1};h1=${h1(signProviderA(rawBody, secret, ts))}`;
    expect(verifyProviderASignature({ rawBody, header: moved, secret, now })).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('reports a missing header', () => {
    for (const header of [null, undefined, '', '   ']) {
      expect(verifyProviderASignature({ rawBody, header, secret, now })).toEqual({ ok: false, reason: 'missing_header' });
    }
  });

  it('reports a malformed header', () => {
    const good = h1(signProviderA(rawBody, secret, ts));
    const malformed = [
      good,
      `ts=${ts}`,
      `h1=${good}`,
      `ts=;h1=${good}`,
      `ts=abc;h1=${good}`,
      `ts=-5;h1=${good}`,
      `ts=${ts};ts=${ts};h1=${good}`,
      `ts=${ts};h1=`,
      `ts=${ts};;h1=${good}`,
      `ts=${ts},h1=${good}`,
    ];
    for (const header of malformed) {
      expect(verifyProviderASignature({ rawBody, header, secret, now }), header).toEqual({ ok: false, reason: 'malformed_header' });
    }
  });

  it('refuses h1 values that are not 64 hex digits without throwing', () => {
    const good = h1(signProviderA(rawBody, secret, ts));
    for (const bad of [good.slice(0, 63), `${good}00`, `${good.slice(0, 62)}zz`, 'x']) {
      expect(verifyProviderASignature({ rawBody, header: `ts=${ts};h1=${bad}`, secret, now })).toEqual({
        ok: false,
        reason: 'signature_mismatch',
      });
    }
  });

  it('refuses everything while no secret is saved', () => {
    const header = signProviderA(rawBody, '', ts);
    for (const none of [null, undefined, '']) {
      expect(verifyProviderASignature({ rawBody, header, secret: none, now })).toEqual({ ok: false, reason: 'missing_secret' });
    }
  });
});

describe('signProviderA', () => {
  it('is deterministic and rejects a timestamp that is not unix seconds', () => {
    expect(signProviderA(rawBody, secret, ts)).toBe(signProviderA(new TextEncoder().encode(rawBody), secret, ts));
    expect(() => signProviderA(rawBody, secret, 1.5)).toThrow(RangeError);
    expect(() => signProviderA(rawBody, secret, -1)).toThrow(RangeError);
  });
});
