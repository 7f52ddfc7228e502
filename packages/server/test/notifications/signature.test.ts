import { createHmac } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  ROTATION_OVERLAP_MS, activeSigningSecrets, generateWebhookSecret, rotateSigningSecrets, webhookBody, webhookHeaders,
} from '../../src/notifications/index.js';

// Signing is checked with the `standardwebhooks` package, the library vendors will use, not with our code.
const now = () => Math.floor(Date.now() / 1000);

describe('signing secrets', () => {
  it('are whsec_ and the base64 of 32 random bytes, new each time', () => {
    const a = generateWebhookSecret();
    const b = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(a).not.toBe(b);
  });

  it('take their bytes from the injected random source', () => {
    const secret = generateWebhookSecret((size) => new Uint8Array(size).fill(7));
    expect(secret).toBe(`whsec_${Buffer.alloc(32, 7).toString('base64')}`);
  });
});

describe('Standard Webhooks headers', () => {
  const secret = generateWebhookSecret();
  const body = webhookBody({ type: 'license.created', timestamp: new Date('2025-03-01T12:00:00.000Z'), data: { id: 'lic_1', note: 'é ✓' } });

  it('verify with the standardwebhooks package, which returns the body { type, timestamp, data }', () => {
    const headers = webhookHeaders({ id: 'msg_1', timestamp: now(), body }, [secret]);
    expect(Object.keys(headers).sort()).toEqual(['webhook-id', 'webhook-signature', 'webhook-timestamp']);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual({
      type: 'license.created', timestamp: '2025-03-01T12:00:00.000Z', data: { id: 'lic_1', note: 'é ✓' },
    });
  });

  it('is the base64 HMAC-SHA256 of "id.timestamp.body" under the secret\'s bytes', () => {
    const timestamp = 1_700_000_000;
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`msg_2.${timestamp}.${body}`).digest('base64');
    expect(webhookHeaders({ id: 'msg_2', timestamp, body }, [secret])['webhook-signature']).toBe(`v1,${expected}`);
  });

  it('fails verification for another secret, a changed body, id or timestamp, or an old timestamp', () => {
    const timestamp = now();
    const headers = webhookHeaders({ id: 'msg_3', timestamp, body }, [secret]);
    const fails = (key: string, text: string, h: Record<string, string>) => expect(() => new Webhook(key).verify(text, h)).toThrow(WebhookVerificationError);
    fails(generateWebhookSecret(), body, headers);
    fails(secret, body.replace('lic_1', 'lic_2'), headers);
    fails(secret, body, { ...headers, 'webhook-id': 'msg_4' });
    fails(secret, body, { ...headers, 'webhook-timestamp': String(timestamp + 1) });
    const stale = now() - 10 * 60;
    fails(secret, body, webhookHeaders({ id: 'msg_3', timestamp: stale, body }, [secret]));
  });

  it('refuses to sign without a secret, with a malformed secret or with an id that is not a header value', () => {
    expect(() => webhookHeaders({ id: 'msg_1', timestamp: now(), body }, [])).toThrow(/at least one signing secret/);
    expect(() => webhookHeaders({ id: 'msg_1', timestamp: now(), body }, ['sk_abc'])).toThrow(/starting with whsec_/);
    expect(() => webhookHeaders({ id: 'msg_1', timestamp: now(), body }, [`whsec_${Buffer.alloc(16).toString('base64')}`])).toThrow(/32 bytes/);
    expect(() => webhookHeaders({ id: 'msg 1\r\n', timestamp: now(), body }, [secret])).toThrow(/webhook id/);
  });
});

describe('secret rotation', () => {
  it('signs with the new and the old secret for 24 hours, so a receiver holding either verifies; then with the new one only', () => {
    const t0 = Date.UTC(2025, 0, 1);
    const old = generateWebhookSecret();
    const fresh = generateWebhookSecret();
    const rotated = rotateSigningSecrets({ current: old, previous: null }, fresh, t0);
    expect(rotated).toEqual({ current: fresh, previous: { secret: old, expiresAt: t0 + ROTATION_OVERLAP_MS } });
    expect(ROTATION_OVERLAP_MS).toBe(24 * 3600 * 1000);

    const body = webhookBody({ type: 'signing_key.rotated', timestamp: new Date(t0), data: {} });
    const during = webhookHeaders({ id: 'msg_r', timestamp: now(), body }, activeSigningSecrets(rotated, t0 + ROTATION_OVERLAP_MS - 1));
    expect(during['webhook-signature'].split(' ')).toHaveLength(2);
    expect(() => new Webhook(old).verify(body, during)).not.toThrow();
    expect(() => new Webhook(fresh).verify(body, during)).not.toThrow();

    const after = webhookHeaders({ id: 'msg_r', timestamp: now(), body }, activeSigningSecrets(rotated, t0 + ROTATION_OVERLAP_MS));
    expect(after['webhook-signature'].split(' ')).toHaveLength(1);
    expect(() => new Webhook(fresh).verify(body, after)).not.toThrow();
    expect(() => new Webhook(old).verify(body, after)).toThrow(WebhookVerificationError);
  });

  it('keeps two secrets at most: a second rotation within the overlap drops the oldest', () => {
    const [a, b, c] = [generateWebhookSecret(), generateWebhookSecret(), generateWebhookSecret()];
    const twice = rotateSigningSecrets(rotateSigningSecrets({ current: a, previous: null }, b, 0), c, 1000);
    expect(activeSigningSecrets(twice, 2000)).toEqual([c, b]);
  });
});
