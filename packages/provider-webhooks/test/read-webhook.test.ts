import { describe, expect, it } from 'vitest';
import { fixtureNames, readFixture } from '../../../fixtures/index.js';
import { parseProviderAEvent, parseProviderBEvent, readWebhook, signProviderA, signProviderB } from '../src/index.js';

const secret = 'integration-webhook-secret';
const now = Date.parse('2024-06-03T09:12:50Z');
const ts = Math.floor(now / 1000);

describe('readWebhook', () => {
  it.each(fixtureNames('provider_a'))('provider_a %s: a signed fixture gives its command', (name) => {
    const rawBody = readFixture('provider_a', name);
    const headers = { 'provider-a-signature': signProviderA(rawBody, secret, ts), 'content-type': 'application/json' };
    const expected = parseProviderAEvent(rawBody);
    expect(expected.ok).toBe(true);
    expect(readWebhook('provider_a', { rawBody, headers, secret, now })).toEqual({ status: 'ok', command: expected.ok && expected.command });
  });

  it.each(fixtureNames('provider_b'))('provider_b %s: a signed fixture gives its command', (name) => {
    const rawBody = new TextEncoder().encode(readFixture('provider_b', name));
    const headers = new Headers({ 'X-Signature': signProviderB(rawBody, secret), 'X-Event-Name': name });
    const expected = parseProviderBEvent(rawBody);
    expect(expected.ok).toBe(true);
    expect(readWebhook('provider_b', { rawBody, headers, secret, now })).toEqual({ status: 'ok', command: expected.ok && expected.command });
  });

  it('reads header names in any letter case, from a plain object or a Headers', () => {
    const rawBody = readFixture('provider_a', 'customer.created');
    const value = signProviderA(rawBody, secret, ts);
    for (const headers of [{ 'Provider-A-Signature': value }, { 'PROVIDER-A-SIGNATURE': [value] }, new Headers({ 'provider-a-signature': value })]) {
      expect(readWebhook('provider_a', { rawBody, headers, secret, now }).status).toBe('ok');
    }
  });

  it('checks the signature before parsing: an unsigned body that is not JSON is unauthorized, not invalid', () => {
    expect(readWebhook('provider_a', { rawBody: 'not json', headers: {}, secret, now })).toEqual({ status: 'unauthorized', reason: 'missing_header' });
    const wrong = { 'X-Signature': signProviderB('not json', 'other-secret') };
    expect(readWebhook('provider_b', { rawBody: 'not json', headers: wrong, secret, now })).toEqual({ status: 'unauthorized', reason: 'signature_mismatch' });
  });

  it('is unauthorized while no secret is saved, even for a body signed with an empty key', () => {
    const rawBody = readFixture('provider_b', 'order_created');
    const headers = { 'X-Signature': signProviderB(rawBody, '') };
    expect(readWebhook('provider_b', { rawBody, headers, secret: null, now })).toEqual({ status: 'unauthorized', reason: 'missing_secret' });
  });

  it('is unauthorized when the provider_a timestamp is stale, using the given now', () => {
    const rawBody = readFixture('provider_a', 'transaction.completed');
    const headers = { 'Provider-A-Signature': signProviderA(rawBody, secret, ts - 301) };
    expect(readWebhook('provider_a', { rawBody, headers, secret, now })).toEqual({ status: 'unauthorized', reason: 'timestamp_out_of_range' });
    expect(readWebhook('provider_a', { rawBody, headers, secret, now: new Date(now - 1000) }).status).toBe('ok');
    expect(readWebhook('provider_a', { rawBody, headers, secret, now, toleranceSeconds: 400 }).status).toBe('ok');
  });

  it('gives invalid with the typed error for a signed body that cannot be read', () => {
    const rawBody = '{"event_id":"evt_1","event_type":"transaction.completed"}';
    const headers = { 'Provider-A-Signature': signProviderA(rawBody, secret, ts) };
    const result = readWebhook('provider_a', { rawBody, headers, secret, now });
    expect(result).toMatchObject({ status: 'invalid', error: { code: 'invalid_payload', path: 'occurred_at' } });
    const junk = 'not json';
    expect(readWebhook('provider_b', { rawBody: junk, headers: { 'x-signature': signProviderB(junk, secret) }, secret, now })).toMatchObject({
      status: 'invalid',
      error: { code: 'invalid_json' },
    });
  });

  it('does not accept one provider\'s signature for the other', () => {
    const rawBody = readFixture('provider_b', 'order_created');
    const headers = { 'Provider-A-Signature': signProviderA(rawBody, secret, ts) };
    expect(readWebhook('provider_b', { rawBody, headers, secret, now })).toEqual({ status: 'unauthorized', reason: 'missing_header' });
  });

  it('throws for a provider name it does not know (a programmer error)', () => {
    expect(() => readWebhook('provider_c' as 'provider_a', { rawBody: '{}', headers: {}, secret, now })).toThrow(TypeError);
  });
});
