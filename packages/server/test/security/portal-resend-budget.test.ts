import { PORTAL_KEY_EMAILS_PER_HOUR } from '@svc-licensing/license-engine';
import { expect, it } from 'vitest';
import { describeEverySetup } from '../support/harness.js';
import { createPortalHarness, mailsTo, portalCall, signInCustomer, waitForMail, type PortalHarness } from '../support/portal.js';

/**
 * Issue 25, item 5: the portal's "e-mail me the key again" spent the account's hourly budget of key
 * e-mails, so one customer's 20 resends made the vendor's resends, `POST /licenses` with `sendEmail`
 * and webhook purchases answer 429 for the hour. Portal resends now have their own small budget per
 * license, and never spend the account's.
 */

const HOUR = 3_600_000;

/** An account on the `free` service plan (20 key e-mails an hour) with a product, a plan and a license of `email`. */
async function freeVendor(h: PortalHarness, email: string) {
  const { accountId, apiKey } = await h.newAccount('free');
  const call = (method: string, path: string, body?: unknown) => h.api(method, path, body, { key: apiKey });
  const product = await call('POST', '/products', { name: 'Acme Editor', keyPrefix: 'ACME' });
  const plan = await call('POST', `/products/${product.body.id}/plans`, { code: 'pro', kind: 'perpetual', maxActivations: 2 });
  const license = await call('POST', '/licenses', { plan: plan.body.id, email, name: 'Ada Buyer' });
  expect(license.status).toBe(201);
  return { accountId, call, plan: plan.body as { id: string }, license: license.body as { id: string; key: string } };
}

describeEverySetup("portal resends do not spend the vendor's key e-mails", (setup) => {
  it('a customer gets 3 resends per license and hour; the vendor still sends its 20 key e-mails of the hour (a new license included)', async () => {
    const h = await createPortalHarness(setup);
    const buyer = 'ada@buyer.test';
    const vendor = await freeVendor(h, buyer);
    const customer = await signInCustomer(h, vendor.accountId, buyer);

    const answers: number[] = [];
    for (let i = 0; i < 25; i++) answers.push((await portalCall(h, customer, 'POST', `/licenses/${vendor.license.id}/send-key`)).status);
    expect(answers).toEqual([...Array(PORTAL_KEY_EMAILS_PER_HOUR).fill(200), ...Array(25 - PORTAL_KEY_EMAILS_PER_HOUR).fill(429)]);
    const refused = await portalCall(h, customer, 'POST', `/licenses/${vendor.license.id}/send-key`);
    expect(refused.body.error.code).toBe('rate_limited');
    await waitForMail(h, buyer, 1 + PORTAL_KEY_EMAILS_PER_HOUR); // the sign-in link, then the resends
    expect(mailsTo(h, buyer)).toHaveLength(1 + PORTAL_KEY_EMAILS_PER_HOUR);

    // The account's whole budget is left: a purchase's key e-mail (a license created with sendEmail) and the vendor's resends.
    const bought = await vendor.call('POST', '/licenses', { plan: vendor.plan.id, email: 'new@buyer.test', name: 'New Buyer', sendEmail: true });
    expect(bought.status).toBe(201);
    await waitForMail(h, 'new@buyer.test', 1);
    const vendorSends: number[] = [];
    for (let i = 0; i < 19; i++) vendorSends.push((await vendor.call('POST', `/licenses/${vendor.license.id}/send-key`)).status);
    expect(vendorSends).toEqual(Array(19).fill(200));
    // The 21st key e-mail of the hour is the account's budget's: the plan still bounds the vendor.
    expect((await vendor.call('POST', `/licenses/${vendor.license.id}/send-key`)).status).toBe(429);
    // The customer's own budget is unchanged by the vendor's sends, and comes back the next hour.
    expect((await portalCall(h, customer, 'POST', `/licenses/${vendor.license.id}/send-key`)).status).toBe(429);
    h.clock.advance(HOUR);
    const again = await portalCall(h, customer, 'POST', `/licenses/${vendor.license.id}/send-key`);
    expect(again.status, JSON.stringify(again.body)).not.toBe(429);
  });

  it("one license's resends leave another license of the same customer its own budget", async () => {
    const h = await createPortalHarness(setup);
    const buyer = 'two@buyer.test';
    const vendor = await freeVendor(h, buyer);
    const second = await vendor.call('POST', '/licenses', { plan: vendor.plan.id, email: buyer, name: 'Ada Buyer' });
    const customer = await signInCustomer(h, vendor.accountId, buyer);
    for (let i = 0; i < PORTAL_KEY_EMAILS_PER_HOUR; i++) {
      expect((await portalCall(h, customer, 'POST', `/licenses/${vendor.license.id}/send-key`)).status).toBe(200);
    }
    expect((await portalCall(h, customer, 'POST', `/licenses/${vendor.license.id}/send-key`)).status).toBe(429);
    expect((await portalCall(h, customer, 'POST', `/licenses/${second.body.id}/send-key`)).status).toBe(200);
  });
});
