import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readFixture } from '../../../fixtures/index.js';
import { signProviderB, verifyProviderBSignature } from '../src/index.js';

const secret = 'ls-signing-secret-42';
const rawBody = readFixture('provider_b', 'order_created');

describe('verifyProviderBSignature', () => {
  it('accepts the hex HMAC-SHA256 of the raw body, in either letter case, string or bytes', () => {
    const signature = signProviderB(rawBody, secret);
    expect(signature).toBe(createHmac('sha256', secret).update(rawBody).digest('hex'));
    expect(verifyProviderBSignature({ rawBody, signature, secret })).toEqual({ ok: true });
    expect(verifyProviderBSignature({ rawBody, signature: signature.toUpperCase(), secret })).toEqual({ ok: true });
    expect(verifyProviderBSignature({ rawBody: new TextEncoder().encode(rawBody), signature, secret })).toEqual({ ok: true });
  });

  it('refuses a signature made with another secret or over another body', () => {
    expect(verifyProviderBSignature({ rawBody, signature: signProviderB(rawBody, 'other'), secret })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
    expect(verifyProviderBSignature({ rawBody: `${rawBody} `, signature: signProviderB(rawBody, secret), secret })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('reports a missing or malformed header and a missing secret', () => {
    for (const signature of [null, undefined, '']) {
      expect(verifyProviderBSignature({ rawBody, signature, secret })).toEqual({ ok: false, reason: 'missing_header' });
    }
    const good = signProviderB(rawBody, secret);
    for (const signature of [good.slice(1), `sha256=${good}`, `${good.slice(0, 63)}g`]) {
      expect(verifyProviderBSignature({ rawBody, signature, secret })).toEqual({ ok: false, reason: 'malformed_header' });
    }
    expect(verifyProviderBSignature({ rawBody, signature: good, secret: null })).toEqual({ ok: false, reason: 'missing_secret' });
  });
});
