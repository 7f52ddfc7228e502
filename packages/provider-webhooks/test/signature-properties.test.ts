import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fixtureNames, readFixture } from '../../../fixtures/index.js';
import { signProviderA, signProviderB, verifyProviderASignature, verifyProviderBSignature } from '../src/index.js';

const bodies = (provider: 'provider_a' | 'provider_b') =>
  fixtureNames(provider).map((name) => new TextEncoder().encode(readFixture(provider, name)));

/** A copy of `bytes` with the byte at `index` changed by a non-zero `delta`. */
function flip(bytes: Uint8Array, index: number, delta: number): Uint8Array {
  const copy = bytes.slice();
  copy[index] = (copy[index]! + delta) & 0xff;
  return copy;
}

const now = 1_718_000_000_000;
const ts = now / 1000;

describe('provider_a signatures (property)', () => {
  const fixtures = bodies('provider_a');

  it('fail when any byte of the body changes', () => {
    fc.assert(
      fc.property(fc.constantFrom(...fixtures), fc.nat(), fc.integer({ min: 1, max: 255 }), fc.string({ minLength: 1 }), (body, at, delta, secret) => {
        const header = signProviderA(body, secret, ts);
        const changed = flip(body, at % body.length, delta);
        expect(verifyProviderASignature({ rawBody: body, header, secret, now })).toEqual({ ok: true });
        expect(verifyProviderASignature({ rawBody: changed, header, secret, now })).toEqual({ ok: false, reason: 'signature_mismatch' });
      }),
    );
  });

  it('fail when the timestamp changes, even within the tolerance', () => {
    fc.assert(
      fc.property(fc.constantFrom(...fixtures), fc.integer({ min: -300, max: 300 }).filter((d) => d !== 0), (body, delta) => {
        const h1 = signProviderA(body, 'secret', ts).split('h1=')[1]!;
        const header = `ts=${ts + delta};h1=${h1}`;
        expect(verifyProviderASignature({ rawBody: body, header, secret: 'secret', now })).toEqual({ ok: false, reason: 'signature_mismatch' });
      }),
    );
  });

  it('fail under any other secret', () => {
    fc.assert(
      fc.property(fc.constantFrom(...fixtures), fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (body, secret, other) => {
        fc.pre(secret !== other);
        const header = signProviderA(body, secret, ts);
        expect(verifyProviderASignature({ rawBody: body, header, secret: other, now })).toEqual({ ok: false, reason: 'signature_mismatch' });
      }),
    );
  });
});

describe('provider_b signatures (property)', () => {
  const fixtures = bodies('provider_b');

  it('fail when any byte of the body changes', () => {
    fc.assert(
      fc.property(fc.constantFrom(...fixtures), fc.nat(), fc.integer({ min: 1, max: 255 }), fc.string({ minLength: 1 }), (body, at, delta, secret) => {
        const signature = signProviderB(body, secret);
        expect(verifyProviderBSignature({ rawBody: body, signature, secret })).toEqual({ ok: true });
        const changed = flip(body, at % body.length, delta);
        expect(verifyProviderBSignature({ rawBody: changed, signature, secret })).toEqual({ ok: false, reason: 'signature_mismatch' });
      }),
    );
  });

  // HMAC pads short keys with zero bytes, so keys that differ only by trailing zeros are one key: keep zeros out.
  const key = fc.uint8Array({ minLength: 1, min: 1 });

  it('fail under any other secret', () => {
    fc.assert(
      fc.property(fc.constantFrom(...fixtures), key, key, (body, secret, other) => {
        fc.pre(Buffer.compare(Buffer.from(secret), Buffer.from(other)) !== 0);
        const signature = signProviderB(body, secret);
        expect(verifyProviderBSignature({ rawBody: body, signature, secret: other })).toEqual({ ok: false, reason: 'signature_mismatch' });
      }),
    );
  });
});
