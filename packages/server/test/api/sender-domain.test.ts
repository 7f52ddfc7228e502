import { Resolver } from 'node:dns/promises';
import { afterEach, expect, it } from 'vitest';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { createDnsResolver, createKeyEmailSender, createSmtpMailer, type KeyEmailSender } from '../../src/index.js';
import { createHarness, describeEverySetup, type Setup } from '../support/harness.js';
import { licensed } from '../support/fixtures.js';
import { startDnsServer } from '../support/dns-server.js';
import { startSmtpCapture } from '../support/smtp-capture.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of cleanups.splice(0).reverse()) await close();
});

const DOMAIN = 'mail.vendor.test';

/** A harness whose app checks sender domains against a real DNS server on loopback and sends key e-mails to a real SMTP server. */
async function setupWorld(setup: Setup) {
  const dns = await startDnsServer();
  cleanups.push(() => dns.close());
  const smtp = await startSmtpCapture({ starttls: false });
  cleanups.push(() => smtp.close());
  let sender: KeyEmailSender | null = null;
  const h = await createHarness(setup, {
    senderDomains: { resolver: createDnsResolver({ servers: [dns.address], timeoutMs: 1000 }), spfMechanism: 'include:svc.test' },
    hooks: { sendKeyEmail: (input) => sender!.hook(input) },
  });
  sender = createKeyEmailSender({
    engine: h.engine,
    mailer: createSmtpMailer({ host: '127.0.0.1', port: smtp.port, security: 'none', timeoutMs: 10_000 }),
    sender: { fromAddress: 'no-reply@svc.test' },
  });
  return { h, dns, smtp };
}

describeEverySetup('sender domain over HTTP', (setup) => {
  it('the owner claims, anyone with access verifies against DNS, key e-mails are DKIM-signed while verified, the owner releases', async () => {
    const { h, dns, smtp } = await setupWorld(setup);
    const owner = await h.signIn();
    const member = await h.signIn({ role: 'member' });
    expect((await h.api('GET', '/account/sender-domain')).body).toMatchObject({ domain: null, status: 'none', records: [] });
    expect((await h.api('POST', '/account/sender-domain/verify')).status).toBe(404);

    // Only the owner's session claims; bad input writes nothing.
    const withKey = await h.api('POST', '/account/sender-domain', { domain: DOMAIN });
    expect([withKey.status, withKey.body.error.code]).toEqual([400, 'owner_session_required']);
    const byMember = await h.api('POST', '/account/sender-domain', { domain: DOMAIN }, { session: member });
    expect([byMember.status, byMember.body.error.code]).toEqual([403, 'forbidden']);
    for (const body of [{ domain: 'not a domain' }, { domain: DOMAIN, extra: 1 }, {}, { domain: 7 }]) {
      const bad = await h.api('POST', '/account/sender-domain', body, { session: owner });
      expect([bad.status, bad.body.error.code], JSON.stringify(body)).toEqual([400, 'invalid_request']);
    }
    expect((await h.api('GET', '/account/sender-domain')).body.status).toBe('none');

    const claimed = await h.api('POST', '/account/sender-domain', { domain: DOMAIN }, { session: owner });
    expect(claimed.status).toBe(200);
    expect(claimed.body).toMatchObject({ domain: DOMAIN, status: 'pending' });
    expect(claimed.body.records.map((r: { purpose: string }) => r.purpose)).toEqual(['ownership', 'spf', 'dkim']);
    expect((await h.api('GET', '/account/sender-domain', undefined, { session: member })).body).toEqual(claimed.body);
    const other = await h.newAccount();
    expect((await h.api('GET', '/account/sender-domain', undefined, { key: other.apiKey })).body.status).toBe('none');

    expect((await h.api('POST', '/account/sender-domain/verify')).body.status).toBe('failed');
    for (const r of claimed.body.records) dns.setTxt(r.name, [r.value]);
    const verified = await h.api('POST', '/account/sender-domain/verify', undefined, { session: member });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ status: 'verified', senderEmail: `licenses@${DOMAIN}` });

    // A key e-mail now: from the domain, with a DKIM signature a verifier accepts through the same DNS.
    const { license } = await licensed(h);
    expect((await h.api('POST', `/licenses/${license.id}/send-key`)).status).toBe(200);
    const [mail] = await smtp.waitFor(1);
    expect(mail!.mail.from?.value[0]?.address).toBe(`licenses@${DOMAIN}`);
    const resolver = new Resolver();
    resolver.setServers([dns.address]);
    const { results } = await dkimVerify(mail!.raw, { resolver: (name: string, type: string) => resolver.resolve(name, type as 'TXT') as never });
    expect(results[0]).toMatchObject({ signingDomain: DOMAIN, status: { result: 'pass' } });

    // Release: owner only; then unsigned mail from the service's sender.
    expect((await h.api('DELETE', '/account/sender-domain')).status).toBe(400);
    expect((await h.api('DELETE', '/account/sender-domain', undefined, { session: member })).status).toBe(403);
    const released = await h.api('DELETE', '/account/sender-domain', undefined, { session: owner });
    expect(released.body).toMatchObject({ domain: null, status: 'none' });
    expect((await h.api('DELETE', '/account/sender-domain', undefined, { session: owner })).status).toBe(404);
    expect((await h.api('POST', `/licenses/${license.id}/send-key`)).status).toBe(200);
    const [, after] = await smtp.waitFor(2);
    expect(after!.mail.from?.value[0]?.address).toBe('no-reply@svc.test');
    expect(after!.raw).not.toMatch(/^DKIM-Signature:/im);

    // The DKIM private key was never in an answer or a log line.
    const everything = JSON.stringify([claimed.body, verified.body, released.body, h.logLines]);
    expect(everything).not.toMatch(/PRIVATE KEY|dkimPrivateKey/);
  });

  it('the account export streams over HTTP to the owner only, audited', async () => {
    const { h } = await setupWorld(setup);
    const owner = await h.signIn();
    const member = await h.signIn({ role: 'member' });
    const { license } = await licensed(h);
    expect((await h.api('POST', '/account/export')).body.error.code).toBe('owner_session_required');
    expect((await h.api('POST', '/account/export', undefined, { session: member })).body.error.code).toBe('forbidden');
    const res = await h.fetch('/v1/account/export', { method: 'POST', headers: owner.headers });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-ratelimit-limit')).not.toBeNull();
    const doc = await res.json();
    expect(doc).toMatchObject({ format: 'svc-account-export-v1', account: { id: h.accountId } });
    expect(doc.licenses.map((l: { id: string; key: string }) => [l.id, l.key])).toEqual([[license.id, license.key]]);
    const events = await h.api('GET', '/events');
    expect(events.body.data[0]).toMatchObject({ type: 'account.exported', data: { format: 'svc-account-export-v1', exportId: doc.exportId } });
    expect(h.logLines.at(-2)).toMatchObject({ method: 'POST', path: '/v1/account/export', status: 200 });
  });
});
