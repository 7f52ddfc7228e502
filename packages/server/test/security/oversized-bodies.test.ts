import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_BODY_LIMIT } from '../../src/http/body.js';
import { WEBHOOK_BODY_LIMIT } from '../../src/routes/webhooks.js';
import { createHarness, type Harness } from '../support/harness.js';
import { openUpload } from '../support/raw-upload.js';
import { startSmtpCapture, type SmtpCapture } from '../support/smtp-capture.js';
import { STORE_KINDS } from '../support/stores.js';

// A body over a route's limit is answered 413 and the connection is closed, on every kind of
// route (the vendor API, the client API, the payment-provider webhook receiver), so a client that
// keeps sending is cut off instead of having the rest of its body read and thrown away: a 10 GB
// upload to a 64 KiB route costs the server what the limit allows, not 10 GB of reading.

const MiB = 1024 * 1024;

describe.each(STORE_KINDS)('bodies over the limit on the API routes (node-server, %s)', (store) => {
  let h: Harness;
  let origin: string;
  let smtp: SmtpCapture;
  let routes: { name: string; path: string; headers: Record<string, string>; limit: number }[];

  beforeEach(async () => {
    smtp = await startSmtpCapture({ starttls: false });
    h = await createHarness({ mode: 'node-server', store }, {}, { smtp, webhooks: true });
    origin = new URL((await h.fetch('/health')).url).origin;
    const product = await h.api('POST', '/products', { name: 'Editor', keyPrefix: 'ED-' });
    const integration = await h.api('POST', '/integrations', { provider: 'provider_a', product: product.body.id, webhookSecret: 'whsec_bodies', priceMap: {} });
    expect(integration.status).toBe(201);
    const json = { 'content-type': 'application/json' };
    routes = [
      { name: 'vendor API', path: '/v1/products', headers: { ...json, authorization: `Bearer ${h.apiKey}` }, limit: DEFAULT_BODY_LIMIT },
      { name: 'client API', path: '/v1/licenses/activate', headers: json, limit: DEFAULT_BODY_LIMIT },
      { name: 'webhook receiver', path: `/v1/webhooks/provider_a/${integration.body.id}`, headers: { ...json, 'provider-a-signature': 'ts=1;h1=00' }, limit: WEBHOOK_BODY_LIMIT },
    ];
  });

  afterEach(async () => {
    await smtp?.close();
  });

  it('a declared length over the limit is refused with 413 before the body is sent, and the server closes the connection', async () => {
    for (const route of routes) {
      const upload = openUpload(origin, route.path, route.headers, 100 * MiB);
      try {
        const answer = await upload.answer();
        expect(answer.status, route.name).toBe(413);
        expect(answer.sentBeforeAnswer, route.name).toBe(0);
        expect(JSON.parse(answer.body).error.code, route.name).toBe('invalid_request');
        expect(answer.headers.connection, route.name).toBe('close');
        await upload.closedByServer();
      } finally {
        upload.destroy();
      }
    }
  });

  it('a chunked body is refused with 413 once it passes the limit, and the server closes the connection while its end is still to come', async () => {
    for (const route of routes) {
      const upload = openUpload(origin, route.path, route.headers, null);
      try {
        await upload.send(2 * route.limit);
        const answer = await upload.answer();
        expect(answer.status, route.name).toBe(413);
        expect(answer.headers.connection, route.name).toBe('close');
        await upload.closedByServer();
      } finally {
        upload.destroy();
      }
    }
  });

  it('a body within the limit on the same connection kind is still answered and the connection kept', async () => {
    const body = JSON.stringify({ name: 'Within', keyPrefix: 'WI-' });
    const upload = openUpload(origin, '/v1/products', { 'content-type': 'application/json', authorization: `Bearer ${h.apiKey}` }, Buffer.byteLength(body));
    try {
      await upload.sendText(body);
      const answer = await upload.answer();
      expect(answer.status).toBe(201);
      expect(answer.headers.connection).not.toBe('close');
    } finally {
      upload.destroy();
    }
  });
});
