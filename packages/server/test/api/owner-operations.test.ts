import { createPrivateKey, sign as nodeSign } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { base64urlEncode, machineFingerprint, type CertificatePayload } from '@svc-licensing/cert-format';
import { signCertificate } from '@svc-licensing/cert-format/sign';
import { SESSION_LIFETIMES } from '@svc-licensing/license-engine';
import { signProviderB } from '@svc-licensing/provider-webhooks';
import { verifyCertificate } from '@svc-licensing/verifier';
import { afterEach, expect, it } from 'vitest';
import { purgeNow } from '../../src/purge-job.js';
import { licensed } from '../support/fixtures.js';
import { createHarness, describeEverySetup, PUBLIC_BASE_URL, PUBLIC_ORIGIN, type Harness } from '../support/harness.js';
import { startSmtpCapture, type SmtpCapture } from '../support/smtp-capture.js';

const DAY = 86_400_000;

const smtps: SmtpCapture[] = [];
afterEach(async () => {
  for (const smtp of smtps.splice(0)) await smtp.close();
});
async function smtpCapture(): Promise<SmtpCapture> {
  const smtp = await startSmtpCapture({ starttls: false });
  smtps.push(smtp);
  return smtp;
}

/** The one-time link in an e-mail's text, as a path of the app (the public base URL removed). */
function linkIn(text: string, page: 'sign-in' | 'reopen'): string {
  const match = new RegExp(`${PUBLIC_BASE_URL.replace(/\./g, '\\.')}(/${page}\\?token=[^\\s]+)`).exec(text);
  if (!match) throw new Error(`no ${page} link in: ${text}`);
  return match[1]!;
}

async function post(h: Harness, path: string) {
  const res = await h.fetch(path, { method: 'POST', headers: { origin: PUBLIC_ORIGIN }, redirect: 'manual' });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const cookieOf = (headers: Headers) => /^(svc_session=[^;]+)/.exec(headers.get('set-cookie') ?? '')?.[1];

/** Every text an account could have left in the store: the files of the data folder, or every row of every table. */
async function storedText(h: Harness): Promise<string> {
  const location = h.storeLocation;
  if (location.kind === 'embedded') {
    const parts: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) await walk(path);
        else parts.push((await readFile(path)).toString('latin1'));
      }
    };
    await walk(location.dir);
    return parts.join('\n');
  }
  const tables = await location.db.admin<{ t: string }[]>('SELECT TABLE_NAME AS t FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?', [location.db.name]);
  const parts: string[] = [];
  for (const { t } of tables) parts.push(JSON.stringify(await location.db.admin(`SELECT * FROM \`${location.db.name}\`.\`${t}\``)));
  return parts.join('\n');
}

describeEverySetup('owner-only operations over HTTP', (setup) => {
  it('the owner exports every private key (svc-signing-keys-v1); the exported key signs certificates the verifier accepts; audited; 10 per hour; signing goes on', async () => {
    const h = await createHarness(setup);
    const { product, license } = await licensed(h);
    expect((await h.api('POST', `/products/${product.id}/keys`)).status).toBe(201); // k2, pending
    const owner = await h.signIn();
    const exported = await h.api('POST', `/products/${product.id}/keys/export`, undefined, { session: owner });
    expect(exported.status).toBe(200);
    const doc = exported.body;
    expect(doc).toMatchObject({ format: 'svc-signing-keys-v1', product: { id: product.id, name: product.name, keyPrefix: product.keyPrefix }, certificateFormat: 'CRT1' });
    expect(doc.exportedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(doc.keys.map((k: { kid: string; status: string }) => [k.kid, k.status])).toEqual([['k1', 'active'], ['k2', 'pending']]);
    const published = (await h.api('GET', `/products/${product.id}/keys`)).body.data as { kid: string; publicKey: string }[];
    expect(doc.keys.map((k: { publicKey: string }) => k.publicKey)).toEqual(published.map((k) => k.publicKey));
    // The private keys never appear in the lists.
    expect(JSON.stringify(published)).not.toContain(doc.keys[0].privateKey);

    // A certificate signed outside the service with the exported key (raw seed, and PKCS#8 through node:crypto) verifies.
    const fp = machineFingerprint(product.id, 'exported-machine');
    const now = Math.floor(h.clock.now() / 1000);
    const payload: CertificatePayload = {
      v: 1, kid: 'k1', product: product.id, license: license.id, plan: 'pro', entitlements: ['export'], status: 'active', seats: 1,
      licensee: 'Ada Buyer', fingerprint: fp, paidUntil: now + 30 * 86_400, validUntil: now + 33 * 86_400, maxMajor: null,
      issuedAt: now, refreshAfter: now + 86_400, expiresAt: now + 14 * 86_400,
    };
    const options = { publicKeys: Object.fromEntries(published.map((k) => [k.kid, k.publicKey])), product: product.id, fingerprint: fp, appMajor: 1, now };
    const fromSeed = signCertificate(payload, Buffer.from(doc.keys[0].privateKey, 'base64url'));
    expect((await verifyCertificate(fromSeed, options)).outcome).toBe('valid');
    const encoded = `CRT1.${base64urlEncode(new TextEncoder().encode(JSON.stringify({ ...payload, licensee: 'PKCS8 signer' })))}`;
    const pkcs8 = createPrivateKey({ key: Buffer.from(doc.keys[0].privateKeyPkcs8, 'base64'), format: 'der', type: 'pkcs8' });
    const fromPkcs8 = `${encoded}.${base64urlEncode(nodeSign(null, Buffer.from(encoded, 'ascii'), pkcs8))}`;
    expect((await verifyCertificate(fromPkcs8, options)).outcome).toBe('valid');

    // The service keeps signing with the same key.
    const activated = await h.client('activate', { product: product.id, key: license.key, fingerprint: fp });
    expect(activated.status).toBe(200);
    expect((await verifyCertificate(activated.body.certificate, options)).outcome).toBe('valid');

    const events = (await h.api('GET', '/events', undefined, { session: owner })).body.data;
    expect(events.filter((e: { type: string }) => e.type === 'signing_key.exported')).toEqual([
      expect.objectContaining({ license: null, data: { product: product.id, kids: ['k1', 'k2'] } }),
    ]);
    expect(JSON.stringify([events, h.logLines])).not.toContain(doc.keys[0].privateKey);

    for (let i = 2; i <= 10; i++) expect((await h.api('POST', `/products/${product.id}/keys/export`, undefined, { session: owner })).status).toBe(200);
    const eleventh = await h.api('POST', `/products/${product.id}/keys/export`, undefined, { session: owner });
    expect([eleventh.status, eleventh.body.error.code]).toEqual([429, 'rate_limited']);
    h.clock.advance(3_600_000);
    expect((await h.api('POST', `/products/${product.id}/keys/export`, undefined, { session: owner })).status).toBe(200);
  });

  it('a sign-in link request e-mails known addresses (owner, member; en and fr) and answers unknown ones alike; the link signs in', async () => {
    const smtp = await smtpCapture();
    const h = await createHarness(setup, {}, { smtp });
    const owner = await h.signIn();
    const member = await h.signIn({ role: 'member' });
    await h.api('PATCH', '/account', { defaultLocale: 'fr' });

    const unknown = await h.api('POST', '/session/link', { email: 'nobody@unknown.test' }, { key: null });
    const known = await h.api('POST', '/session/link', { email: owner.email.toUpperCase() }, { key: null });
    expect([unknown.status, unknown.body]).toEqual([202, { accepted: true }]);
    expect([known.status, known.body]).toEqual([unknown.status, unknown.body]);
    const [mail] = await smtp.waitFor(1);
    expect(mail!.envelope.to).toEqual([owner.email]);
    expect(mail!.mail.subject).toBe('Connexion à Vendor');
    const path = linkIn(mail!.mail.text!, 'sign-in');
    const signedIn = await post(h, path);
    expect(signedIn.status).toBe(303);
    const cookie = cookieOf(signedIn.headers)!;
    expect((await h.fetch('/v1/session', { headers: { cookie } })).status).toBe(200);

    await h.api('PATCH', '/account', { defaultLocale: 'en' });
    await h.api('POST', '/session/link', { email: member.email }, { key: null });
    const [, memberMail] = await smtp.waitFor(2);
    expect(memberMail!.envelope.to).toEqual([member.email]);
    expect(memberMail!.mail.subject).toBe('Sign in to Vendor');
    const memberIn = await post(h, linkIn(memberMail!.mail.text!, 'sign-in'));
    const who = await h.fetch('/v1/session', { headers: { cookie: cookieOf(memberIn.headers)! } });
    expect(await who.json()).toMatchObject({ role: 'member', email: member.email });
    expect(smtp.messages).toHaveLength(2); // nothing went to the unknown address
    expect(JSON.stringify(h.logLines)).not.toContain('svc_lt_');

    const bad = await h.api('POST', '/session/link', { email: 'not an address' }, { key: null });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'invalid_request']);
  });

  it('sign-in requests are rate-limited per address and per IP, known or not', async () => {
    const h = await createHarness(setup, { limits: { signInPerEmail: 3, signInPerIp: 8 } });
    const owner = await h.signIn();
    for (const email of [owner.email, 'nobody@unknown.test']) {
      for (let i = 0; i < 3; i++) expect((await h.api('POST', '/session/link', { email }, { key: null })).status).toBe(202);
      const over = await h.api('POST', '/session/link', { email }, { key: null });
      expect([over.status, over.body.error.code]).toEqual([429, 'rate_limited']);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // 8 per IP: 6 counted above (plus the 2 refused), so the next new address is refused too.
    const byIp = await h.api('POST', '/session/link', { email: 'third@unknown.test' }, { key: null });
    expect(byIp.status).toBe(429);
    h.clock.advance(3_600_000);
    expect((await h.api('POST', '/session/link', { email: owner.email }, { key: null })).status).toBe(202);
  });

  it('the owner invites a member by e-mail (the invitation signs them in) and removes them', async () => {
    const smtp = await smtpCapture();
    const h = await createHarness(setup, {}, { smtp });
    const owner = await h.signIn();
    const invited = await h.api('POST', '/members', { email: 'Colleague@Vendor.test' }, { session: owner });
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({ email: 'colleague@vendor.test', role: 'member' });
    const [mail] = await smtp.waitFor(1);
    expect(mail!.envelope.to).toEqual(['colleague@vendor.test']);
    expect(mail!.mail.subject).toBe('You are invited to Vendor');
    const signedIn = await post(h, linkIn(mail!.mail.text!, 'sign-in'));
    const cookie = cookieOf(signedIn.headers)!;
    expect(await (await h.fetch('/v1/session', { headers: { cookie } })).json()).toMatchObject({ role: 'member' });
    expect((await h.api('POST', '/members', { email: 'colleague@vendor.test' }, { session: owner })).status).toBe(409);
    expect((await h.api('POST', '/members', { email: owner.email }, { session: owner })).status).toBe(409);
    expect((await h.api('DELETE', `/members/${invited.body.id}`, undefined, { session: owner })).status).toBe(200);
    expect((await h.fetch('/v1/session', { headers: { cookie } })).status).toBe(401);
  });

  it('closure revokes keys and sessions at once, refuses activations, keeps machines validating, e-mails a reopen link; reopening restores access', async () => {
    const smtp = await smtpCapture();
    const h = await createHarness(setup, {}, { smtp });
    const { product, license } = await licensed(h);
    const fp = machineFingerprint(product.id, 'machine-1');
    expect((await h.client('activate', { product: product.id, key: license.key, fingerprint: fp })).status).toBe(200);
    const owner = await h.signIn();
    const member = await h.signIn({ role: 'member' });

    const closed = await h.api('POST', '/account/close', undefined, { session: owner });
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ status: 'closed' });
    expect(closed.headers.get('set-cookie')).toMatch(/^svc_session=; /);
    expect((await h.api('GET', '/products')).status).toBe(401);
    expect((await h.api('GET', '/session', undefined, { session: owner })).status).toBe(401);
    expect((await h.api('GET', '/session', undefined, { session: member })).status).toBe(401);
    const refused = await h.client('activate', { product: product.id, key: license.key, fingerprint: machineFingerprint(product.id, 'machine-2') });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'account_closed']);
    expect((await h.client('validate', { product: product.id, key: license.key, fingerprint: fp })).status).toBe(200);
    // The dashboard cannot be signed in to while closed.
    await expect(h.engine.issueSignInLink(h.accountId)).rejects.toMatchObject({ code: 'account_closed' });
    await h.api('POST', '/session/link', { email: owner.email }, { key: null });

    const [mail] = await smtp.waitFor(1);
    expect(mail!.envelope.to).toEqual([owner.email]);
    expect(mail!.mail.subject).toContain('reopen it within 30 days');
    const reopenPath = linkIn(mail!.mail.text!, 'reopen');
    const page = await h.fetch(reopenPath);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Reopen the account');
    expect(smtp.messages).toHaveLength(1); // no sign-in link for a closed account

    h.clock.advance(10 * DAY);
    const reopened = await post(h, reopenPath);
    expect(reopened.status).toBe(303);
    const session = { ...owner, cookie: cookieOf(reopened.headers)! };
    expect((await h.api('GET', '/account', undefined, { session })).body).toMatchObject({ status: 'open', closedAt: null });
    expect((await h.api('GET', '/products')).status).toBe(401); // old API keys stay revoked
    const newKey = await h.api('POST', '/api-keys', { name: 'after reopening' }, { session });
    expect(newKey.status).toBe(201);
    expect((await h.api('GET', '/products', undefined, { key: newKey.body.key })).status).toBe(200);
    expect((await post(h, reopenPath)).status).toBe(410);
  });

  it('a reopen link is refused after 30 days; the purge then deletes every record of the account on the store, and nothing else', async () => {
    const smtp = await smtpCapture();
    const h = await createHarness(setup, {}, { smtp, webhooks: true });
    const { product, license } = await licensed(h, { email: 'purged-buyer@example.test', name: 'Purged Buyer' }, {});
    await h.api('PATCH', `/products/${product.id}`, { name: 'Purged Product' });
    const integration = await h.api('POST', '/integrations', { provider: 'provider_b', product: product.id, webhookSecret: 'whsec_purge', priceMap: { '1': 'pro' } });
    expect(integration.status).toBe(201);
    const fp = machineFingerprint(product.id, 'machine-1');
    expect((await h.client('activate', { product: product.id, key: license.key, fingerprint: fp })).status).toBe(200);
    await h.api('POST', `/products/${product.id}/keys`);
    const owner = await h.signIn();
    await h.signIn({ role: 'member' });
    await h.api('POST', `/products/${product.id}/keys/export`, undefined, { session: owner });
    const other = await h.newAccount('unlimited');
    const otherProduct = await h.api('POST', '/products', { name: 'Survivor Product', keyPrefix: 'SV' }, { key: other.apiKey });

    expect((await h.api('POST', '/account/close', undefined, { session: owner })).status).toBe(200);
    const [mail] = await smtp.waitFor(1);
    const reopenPath = linkIn(mail!.mail.text!, 'reopen');
    // Not yet (on MariaDB the file's other tests share the database, so only this account is looked at).
    expect((await purgeNow({ engine: h.engine, store: h.store() })).purged).not.toContain(h.accountId);

    h.clock.advance(30 * DAY);
    const late = await post(h, reopenPath);
    expect(late.status).toBe(410);
    expect(cookieOf(late.headers)).toBeUndefined();
    expect((await purgeNow({ engine: h.engine, store: h.store() })).purged).toContain(h.accountId);
    expect((await purgeNow({ engine: h.engine, store: h.store() })).purged).not.toContain(h.accountId); // idempotent

    const validate = await h.client('validate', { product: product.id, key: license.key, fingerprint: fp });
    expect([validate.status, validate.body.error.code]).toEqual([404, 'unknown_product']);
    const raw = JSON.stringify({ meta: { event_name: 'order_created' }, data: { id: '1', type: 'orders', attributes: {} } });
    const webhook = await h.fetch(`/v1/webhooks/provider_b/${integration.body.id}`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-signature': signProviderB(raw, 'whsec_purge') }, body: raw,
    });
    expect(webhook.status).toBe(404);
    expect((await post(h, reopenPath)).status).toBe(404);

    const stored = await storedText(h);
    for (const trace of [h.accountId, product.id, license.id, integration.body.id, 'Purged Product', 'purged-buyer@example.test', 'Purged Buyer', owner.email]) {
      expect(stored.includes(trace), trace).toBe(false);
    }
    // The other account is untouched.
    expect(stored).toContain(other.accountId);
    expect((await h.api('GET', `/products/${otherProduct.body.id}`, undefined, { key: other.apiKey })).status).toBe(200);
  });

  it('billing tells what a self-hosted instance knows, and portalUrl names the service-hosted portal', async () => {
    const h = await createHarness(setup);
    expect((await h.api('GET', '/account/billing')).body).toEqual({ plan: 'unlimited', interval: null, status: 'active', currentPeriodEnd: null, cancelAt: null });
    const account = await h.api('GET', '/account');
    expect(account.body).toMatchObject({ customerPortal: { mode: 'svc' }, portalUrl: `${PUBLIC_BASE_URL}/portal/${h.accountId}/` });
    const custom = await h.api('PATCH', '/account', { customerPortal: { mode: 'custom', url: 'https://portal.vendor.test/' } });
    expect(custom.body.portalUrl).toBe('https://portal.vendor.test/');
    expect((await h.api('PATCH', '/account', { customerPortal: { mode: 'none' } })).body.portalUrl).toBeNull();
    const owner = await h.signIn();
    await h.api('POST', '/account/close', undefined, { session: owner });
    const billing = await h.engine.getBilling(h.accountId);
    expect(billing).toMatchObject({ status: 'canceled', interval: null, currentPeriodEnd: null });
    expect(billing.cancelAt).toMatch(/^\d{4}-/);
    expect(SESSION_LIFETIMES.linkMs).toBe(15 * 60_000);
  });
});
