import { beforeEach, describe, expect, it } from 'vitest';
import { createHarness, PUBLIC_ORIGIN, type Harness } from '../support/harness.js';
import { openUpload } from '../support/raw-upload.js';
import { STORE_KINDS } from '../support/stores.js';

// Issue 25, item 4: the one-time link pages (`POST /sign-in`, `/reopen`, `/portal/{id}/sign-in`)
// are reached before anyone signs in, and read the whole body before looking at its size: six
// parallel 100 MB bodies took the server from 280 MB to 935 MB. Over a real socket, a body over
// the 4 KiB a link form needs is refused with 413 before it is buffered, and the connection is
// closed so the rest is not even drained.

const LIMIT = 4096;
const MiB = 1024 * 1024;
const FORM = { origin: PUBLIC_ORIGIN, 'content-type': 'application/x-www-form-urlencoded' };

describe.each(STORE_KINDS)('bodies posted to the link pages before sign-in (node-server, %s)', (store) => {
  let h: Harness;
  let origin: string;
  const paths = () => ['/sign-in', '/reopen', `/portal/${h.accountId}/sign-in`];

  beforeEach(async () => {
    h = await createHarness({ mode: 'node-server', store });
    origin = new URL((await h.fetch('/health')).url).origin;
  });

  it('a declared length over the limit is refused with 413 before a byte of the body is sent, and the connection is closed', async () => {
    for (const path of paths()) {
      const upload = openUpload(origin, path, FORM, 100 * MiB);
      try {
        const answer = await upload.answer();
        expect(answer.status, path).toBe(413);
        expect(answer.sentBeforeAnswer, path).toBe(0);
        expect(JSON.parse(answer.body), path).toEqual({ error: { code: 'invalid_request', message: `Request body larger than ${LIMIT} bytes.` } });
        expect(answer.headers.connection, path).toBe('close');
        await upload.closedByServer();
      } finally {
        upload.destroy();
      }
    }
  });

  it('a chunked body is refused with 413 once it passes the limit, while its end is still to come', async () => {
    for (const path of paths()) {
      const upload = openUpload(origin, path, FORM, null);
      try {
        // Four times the limit, then the client pauses without ending the body.
        await upload.send(4 * LIMIT);
        const answer = await upload.answer();
        expect(answer.status, path).toBe(413);
        expect(answer.headers.connection, path).toBe('close');
        await upload.closedByServer();
      } finally {
        upload.destroy();
      }
    }
  });

  it('a 64 MiB body sent as fast as the socket takes it is cut off: the server neither buffers nor drains it', async () => {
    for (const path of paths()) {
      for (const declared of [64 * MiB, null]) {
        const upload = openUpload(origin, path, FORM, declared);
        try {
          await upload.send(64 * MiB);
          const answer = await upload.answer();
          expect(answer.status, `${path} ${declared === null ? 'chunked' : 'declared'}`).toBe(413);
          await upload.closedByServer();
          // Whatever was sent before the close sat in socket buffers; the server stopped at the limit.
          expect(upload.sent(), `${path} ${declared === null ? 'chunked' : 'declared'}`).toBeLessThan(64 * MiB);
        } finally {
          upload.destroy();
        }
      }
    }
  });

  it('the link form itself still works: a token in a form of up to the limit signs in, one byte more is 413 and uses nothing', async () => {
    const form = (token: string, size: number) => {
      const base = `token=${encodeURIComponent(token)}&pad=`;
      return base + 'x'.repeat(size - base.length);
    };
    const post = (path: string, body: string) =>
      h.fetch(path, { method: 'POST', headers: { origin: PUBLIC_ORIGIN, 'content-type': 'application/x-www-form-urlencoded' }, body, redirect: 'manual' });

    const link = await h.engine.issueSignInLink(h.accountId);
    const refused = await post('/sign-in', form(link.token, LIMIT + 1));
    expect(refused.status).toBe(413);
    expect(await refused.json()).toMatchObject({ error: { code: 'invalid_request' } });
    const signedIn = await post('/sign-in', form(link.token, LIMIT));
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('set-cookie')).toMatch(/^svc_session=svc_ses_/);

    const product = await h.api('POST', '/products', { name: 'Editor', keyPrefix: 'ED-' });
    const plan = await h.api('POST', `/products/${product.body.id}/plans`, { code: 'pro', name: 'Pro', kind: 'perpetual' });
    expect((await h.api('POST', '/licenses', { plan: plan.body.id, email: 'buyer@example.com' })).status).toBe(201);
    const portalLink = await h.engine.requestPortalLink(h.accountId, 'buyer@example.com');
    const portalPath = `/portal/${h.accountId}/sign-in`;
    expect((await post(portalPath, form(portalLink!.token, LIMIT + 1))).status).toBe(413);
    const customer = await post(portalPath, form(portalLink!.token, LIMIT));
    expect(customer.status).toBe(303);
    expect(customer.headers.get('set-cookie')).toMatch(/^svc_portal_/);
  });
});
