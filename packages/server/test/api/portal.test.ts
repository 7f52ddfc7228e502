import { encodeActivationRequest } from '@svc-licensing/cert-format';
import { CUSTOMER_SESSION_LIFETIMES } from '@svc-licensing/license-engine';
import { expect, it } from 'vitest';
import { createPlan, createProduct, fingerprint, licensed } from '../support/fixtures.js';
import { describeEverySetup, PUBLIC_BASE_URL, PUBLIC_ORIGIN } from '../support/harness.js';
import { createPortalHarness, mailsTo, portalCall, portalLinkIn, signInCustomer, waitForMail, type PortalHarness } from '../support/portal.js';

const BUYER = 'buyer@example.com';
const DAY = 86_400_000;

async function activate(h: PortalHarness, product: string, key: string, machine: number) {
  const res = await h.client('activate', { product, key, fingerprint: fingerprint(product, machine), name: `PC ${machine}`, platform: 'linux', appVersion: '2.1.0' });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.activation as string;
}

describeEverySetup('customer portal API', (setup) => {
  it('signs a customer in with a one-time link from the SMTP server; unknown addresses get the same answer and no e-mail', async () => {
    const h = await createPortalHarness(setup);
    await licensed(h);
    const account = await h.api('GET', '/account');
    expect(account.body.portalUrl).toBe(`${PUBLIC_BASE_URL}/portal/${h.accountId}/`);

    const unknown = await h.fetch(`/v1/portal/${h.accountId}/session/link`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'stranger@example.com' }),
    });
    expect(unknown.status).toBe(202);
    expect(await unknown.json()).toEqual({ accepted: true });

    const customer = await signInCustomer(h, h.accountId, 'Buyer@Example.com');
    const mail = mailsTo(h, BUYER)[0]!;
    expect(mail.mail.subject).toContain('sign-in link');
    expect(portalLinkIn(mail)).toContain(`/portal/${h.accountId}/sign-in?token=svc_lt_`);
    expect(customer.cookie).toMatch(new RegExp(`^svc_portal_${h.accountId}=svc_cs_`));
    await h.settled();
    expect(mailsTo(h, 'stranger@example.com')).toEqual([]);

    const who = await portalCall(h, customer, 'GET', '/session');
    expect(who).toMatchObject({ status: 200, body: { email: BUYER, accountId: h.accountId } });

    // The link works once; a stale one says it expired; neither sets a cookie.
    const url = new URL(portalLinkIn(mail));
    const reused = await h.fetch(`${url.pathname}${url.search}`, { method: 'POST', headers: { origin: PUBLIC_ORIGIN }, redirect: 'manual' });
    expect(reused.status).toBe(410);
    expect(reused.headers.get('set-cookie')).toBeNull();
    await h.fetch(`/v1/portal/${h.accountId}/session/link`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: BUYER }) });
    const late = new URL(portalLinkIn(await waitForMail(h, BUYER, 2)));
    expect((await h.fetch(`${late.pathname}${late.search}`)).status).toBe(200); // GET consumes nothing
    h.clock.advance(CUSTOMER_SESSION_LIFETIMES.linkMs);
    const expired = await h.fetch(`${late.pathname}${late.search}`, { method: 'POST', headers: { origin: PUBLIC_ORIGIN }, redirect: 'manual' });
    expect(expired.status).toBe(410);
    expect(await expired.text()).toContain('expired');

    // Sign-out ends the session.
    const fresh = await signInCustomer(h, h.accountId, BUYER);
    expect((await portalCall(h, fresh, 'DELETE', '/session')).status).toBe(200);
    expect((await portalCall(h, fresh, 'GET', '/licenses')).status).toBe(401);
  });

  it('rate-limits link requests per address, with the same answer whether the address is known or not', async () => {
    const h = await createPortalHarness(setup, { limits: { signInPerEmail: 2, signInPerIp: 100 } });
    await licensed(h);
    const ask = (email: string) =>
      h.fetch(`/v1/portal/${h.accountId}/session/link`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
    for (const email of [BUYER, 'nobody@example.com']) {
      expect((await ask(email)).status).toBe(202);
      expect((await ask(email)).status).toBe(202);
      const third = await ask(email);
      expect(third.status).toBe(429);
      expect((await third.json()).error.code).toBe('rate_limited');
    }
    await h.settled();
    expect(mailsTo(h, BUYER)).toHaveLength(2);
  });

  it('rate-limits link requests per IP across addresses', async () => {
    const h = await createPortalHarness(setup, { limits: { signInPerEmail: 100, signInPerIp: 3 } });
    await licensed(h);
    const statuses: number[] = [];
    for (const email of ['a@example.com', 'b@example.com', BUYER, 'c@example.com']) {
      const res = await h.fetch(`/v1/portal/${h.accountId}/session/link`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([202, 202, 202, 429]);
  });

  it('a customer session never reaches the vendor API, and a dashboard session or API key never reaches the portal API', async () => {
    const h = await createPortalHarness(setup);
    await licensed(h);
    const customer = await signInCustomer(h, h.accountId, BUYER);
    const token = customer.cookie.split('=')[1]!;
    expect((await h.fetch('/v1/licenses', { headers: { cookie: customer.cookie } })).status).toBe(401);
    expect((await h.fetch('/v1/licenses', { headers: { cookie: `svc_session=${token}` } })).status).toBe(401);
    expect((await h.fetch('/v1/licenses', { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);

    const owner = await h.signIn();
    const asOwner = await h.fetch(`/v1/portal/${h.accountId}/licenses`, { headers: owner.headers });
    expect(asOwner.status).toBe(401);
    const withKey = await h.fetch(`/v1/portal/${h.accountId}/licenses`, { headers: { authorization: `Bearer ${h.apiKey}` } });
    expect(withKey.status).toBe(401);
    // The dashboard's sign-in page refuses a portal link, and the portal's refuses a dashboard link.
    const dashboardLink = await h.engine.issueSignInLink(h.accountId);
    const crossed = await h.fetch(`/portal/${h.accountId}/sign-in?token=${dashboardLink.token}`, { method: 'POST', headers: { origin: PUBLIC_ORIGIN }, redirect: 'manual' });
    expect(crossed.status).toBe(404);
  });

  it('shows the customer their licenses, machines and key; frees a machine, which then gets not_activated while another activates', async () => {
    const h = await createPortalHarness(setup);
    const { product, license } = await licensed(h);
    const first = await activate(h, product.id, license.key, 1);
    await activate(h, product.id, license.key, 2);
    const customer = await signInCustomer(h, h.accountId, BUYER);

    const list = await portalCall(h, customer, 'GET', '/licenses');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      {
        id: license.id, product: { id: product.id, name: 'Acme Editor' }, plan: { code: 'pro', name: 'pro' }, status: 'active',
        validUntil: expect.any(String), seats: 1, activationLimit: 2, activationCount: 2, seatMode: 'machine', liveLeases: null, borrowedLeases: null,
      },
    ]);
    expect(JSON.stringify(list.body)).not.toContain(license.key);

    const detail = await portalCall(h, customer, 'GET', `/licenses/${license.id}`);
    expect(detail.body).toMatchObject({ releasesLeft: 3, releaseLimit: 3 });
    expect(detail.body.activations).toEqual([
      expect.objectContaining({ id: first, name: 'PC 1', platform: 'linux', appVersion: '2.1.0', lastSeenAt: expect.any(String) }),
      expect.objectContaining({ name: 'PC 2' }),
    ]);
    const key = await portalCall(h, customer, 'POST', `/licenses/${license.id}/key`);
    expect(key).toMatchObject({ status: 200, body: { id: license.id, key: license.key } });
    expect(key.headers.get('cache-control')).toBe('no-store');

    // Full: a third machine is refused until the customer frees one.
    expect((await h.client('activate', { product: product.id, key: license.key, fingerprint: fingerprint(product.id, 3) })).status).toBe(409);
    const released = await portalCall(h, customer, 'DELETE', `/activations/${first}`);
    expect(released).toMatchObject({ status: 200, body: { released: true, license: license.id, releasesLeft: 2 } });
    const gone = await h.client('validate', { product: product.id, key: license.key, fingerprint: fingerprint(product.id, 1) });
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('not_activated');
    await activate(h, product.id, license.key, 3);

    const events = await h.api('GET', `/events?license=${license.id}`);
    expect(events.body.data.find((e: any) => e.type === 'activation.deleted')).toMatchObject({ data: { activation: first, source: 'portal' } });
  });

  it('bounds releases per license and 30 days by the account setting, with a message saying whom to contact', async () => {
    const h = await createPortalHarness(setup);
    const { product, license } = await licensed(h, { seats: 3 });
    expect((await h.api('PATCH', '/account', { portalReleaseLimit: 1, replyTo: 'help@vendor.test' })).body).toMatchObject({ portalReleaseLimit: 1 });
    const machines = [await activate(h, product.id, license.key, 1), await activate(h, product.id, license.key, 2), await activate(h, product.id, license.key, 3)];
    const customer = await signInCustomer(h, h.accountId, BUYER);

    // Three parallel releases against a bound of one: exactly one succeeds.
    const answers = await Promise.all(machines.map((id) => portalCall(h, customer, 'DELETE', `/activations/${id}`)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
    const refused = answers.find((a) => a.status === 409)!;
    expect(refused.body.error.code).toBe('release_limit');
    expect(refused.body.error.message).toContain('help@vendor.test');
    expect((await h.api('GET', `/licenses/${license.id}`)).body.activationCount).toBe(2);
    expect((await portalCall(h, customer, 'GET', `/licenses/${license.id}`)).body.releasesLeft).toBe(0);

    // The vendor can still free machines, and after 30 days the customer can again.
    h.clock.advance(30 * DAY + 1000);
    const again = await signInCustomer(h, h.accountId, BUYER);
    const left = answers.map((a, i) => (a.status === 200 ? null : machines[i]!)).filter((id): id is string => id !== null);
    expect((await portalCall(h, again, 'DELETE', `/activations/${left[0]}`)).status).toBe(200);
  });

  it("a customer of account A never sees anything of account B, even holding licenses in both", async () => {
    const h = await createPortalHarness(setup);
    const a = await licensed(h);
    const other = await h.newAccount('unlimited');
    const productB = await createProduct(h, { name: 'Beta Tool', keyPrefix: 'BETA' }, other.apiKey);
    const planB = await h.api('POST', `/products/${productB.id}/plans`, { code: 'std', kind: 'perpetual' }, { key: other.apiKey });
    const licenseB = await h.api('POST', '/licenses', { plan: planB.body.id, email: BUYER }, { key: other.apiKey });
    const activationB = await activate(h, productB.id, licenseB.body.key, 9);

    const inA = await signInCustomer(h, h.accountId, BUYER);
    const listA = await portalCall(h, inA, 'GET', '/licenses');
    expect(listA.body.data.map((l: any) => l.id)).toEqual([a.license.id]);
    expect(JSON.stringify(listA.body)).not.toContain('Beta Tool');
    expect((await portalCall(h, inA, 'GET', `/licenses/${licenseB.body.id}`)).status).toBe(404);
    expect((await portalCall(h, inA, 'POST', `/licenses/${licenseB.body.id}/key`)).status).toBe(404);
    expect((await portalCall(h, inA, 'DELETE', `/activations/${activationB}`)).status).toBe(404);
    expect((await portalCall(h, inA, 'POST', `/licenses/${licenseB.body.id}/send-key`)).status).toBe(404);
    // A's cookie does not open B's portal.
    expect((await portalCall(h, inA, 'GET', '/licenses', undefined, other.accountId)).status).toBe(401);
    // Another customer of A sees nothing of this one.
    await h.api('POST', '/licenses', { plan: a.plan.id, email: 'zoe@example.com', paidUntil: '2026-03-01T00:00:00Z' });
    const zoe = await signInCustomer(h, h.accountId, 'zoe@example.com');
    expect((await portalCall(h, zoe, 'GET', `/licenses/${a.license.id}`)).status).toBe(404);
    expect((await h.api('GET', `/licenses/${licenseB.body.id}`, undefined, { key: other.apiKey })).body.activationCount).toBe(1);
  });

  it('state changes need the portal page itself (CSRF): no Origin, another origin are refused and nothing changes', async () => {
    const h = await createPortalHarness(setup);
    const { product, license } = await licensed(h);
    const act = await activate(h, product.id, license.key, 1);
    const customer = await signInCustomer(h, h.accountId, BUYER);
    for (const headers of [{ cookie: customer.cookie }, { cookie: customer.cookie, origin: 'https://evil.example' }]) {
      const res = await h.fetch(`/v1/portal/${h.accountId}/activations/${act}`, { method: 'DELETE', headers });
      expect(res.status).toBe(403);
    }
    expect((await h.api('GET', `/licenses/${license.id}`)).body.activationCount).toBe(1);
  });

  it('re-sends the key e-mail with the portal link; activates an air-gapped machine from a pasted request', async () => {
    const h = await createPortalHarness(setup);
    const { product, license } = await licensed(h);
    const customer = await signInCustomer(h, h.accountId, BUYER);
    const sent = await portalCall(h, customer, 'POST', `/licenses/${license.id}/send-key`);
    expect(sent).toMatchObject({ status: 200, body: { sent: true } });
    const keyMail = await waitForMail(h, BUYER, 2);
    expect(keyMail.mail.subject).toBe('Your license key for Acme Editor');
    expect(keyMail.mail.text).toContain(license.key);
    expect(keyMail.mail.text).toContain(`${PUBLIC_BASE_URL}/portal/${h.accountId}/`);
    expect(keyMail.mail.html).toContain(`href="${PUBLIC_BASE_URL}/portal/${h.accountId}/"`);
    // The vendor's "send key again" answers where the e-mail sent the customer.
    expect((await h.api('POST', `/licenses/${license.id}/send-key`)).body.portalUrl).toBe(`${PUBLIC_BASE_URL}/portal/${h.accountId}/`);

    const request = encodeActivationRequest({ v: 1, product: product.id, fingerprint: fingerprint(product.id, 'lab'), appVersion: '2.0.0', createdAt: 1, name: 'Lab' });
    const noLicense = await portalCall(h, customer, 'POST', '/activations/offline', { request });
    expect(noLicense.status).toBe(400);
    const offline = await portalCall(h, customer, 'POST', '/activations/offline', { request: `  ${request}\n`, license: license.id });
    expect(offline).toMatchObject({ status: 200, body: { certificate: expect.stringMatching(/^CRT1\./), license: license.id } });
    expect((await portalCall(h, customer, 'GET', `/licenses/${license.id}`)).body.activations).toEqual([expect.objectContaining({ name: 'Lab', appVersion: '2.0.0' })]);
  });

  it('an account whose portal is custom or none has no portal here: 404, no link e-mails, and sessions stop working', async () => {
    const h = await createPortalHarness(setup);
    const { license } = await licensed(h);
    const customer = await signInCustomer(h, h.accountId, BUYER);
    const custom = await h.api('PATCH', '/account', { customerPortal: { mode: 'custom', url: 'https://licenses.vendor.test/' } });
    expect(custom.body.portalUrl).toBe('https://licenses.vendor.test/');
    expect((await portalCall(h, customer, 'GET', '/licenses')).status).toBe(401);
    expect((await h.fetch(`/v1/portal/${h.accountId}`)).status).toBe(404);
    await h.fetch(`/v1/portal/${h.accountId}/session/link`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: BUYER }) });
    expect((await h.api('POST', `/licenses/${license.id}/send-key`)).body).toMatchObject({ id: license.id, portalUrl: 'https://licenses.vendor.test/' });
    await h.settled();
    const mails = mailsTo(h, BUYER);
    expect(mails).toHaveLength(2); // the first sign-in link, then the key e-mail: no new link
    expect(mails[1]!.mail.text).not.toContain('/portal/');
    expect(mails[1]!.mail.text).toContain('https://licenses.vendor.test/'); // the vendor's own portal
    const none = await h.api('PATCH', '/account', { customerPortal: { mode: 'none' } });
    expect(none.body.portalUrl).toBeNull();
    expect((await h.api('POST', `/licenses/${license.id}/send-key`)).body.portalUrl).toBeNull();
    const noPortal = await waitForMail(h, BUYER, 3);
    expect(noPortal.mail.text).toContain(license.key);
    expect(noPortal.mail.text).not.toContain('portal');
  });

  it('closing the account ends customer sessions: they do not come back when the account is reopened', async () => {
    const h = await createPortalHarness(setup);
    await licensed(h);
    const customer = await signInCustomer(h, h.accountId, BUYER);
    const { reopenLink } = await h.engine.closeAccount(h.accountId);
    expect((await portalCall(h, customer, 'GET', '/licenses')).status).toBe(401);
    expect(await h.engine.useLink(reopenLink!.token, 'reopen')).toMatchObject({ ok: true });
    expect((await portalCall(h, customer, 'GET', '/licenses')).status).toBe(401);
    const again = await signInCustomer(h, h.accountId, BUYER);
    expect((await portalCall(h, again, 'GET', '/licenses')).status).toBe(200);
  });
});
