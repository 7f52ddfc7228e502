import { beforeEach, describe, expect, it } from 'vitest';
import type { Catalog, TestEngine } from './fixtures.js';
import { codeOf, createCatalog, createTestEngine, paid } from './fixtures.js';

let t: TestEngine;
let c: Catalog;

beforeEach(async () => {
  t = createTestEngine({ servicePlans: { pro: { productLimit: 10, licenseLimit: null, keyEmailsPerHour: 2 } } });
  c = await createCatalog(t);
  await t.engine.updateAccount(c.account.id, { senderName: 'Acme Sales', senderEmail: 'sales@acme.test', defaultLocale: 'fr' });
});

const buy = (n: number) =>
  t.engine.applyPaymentCommand(
    c.providerB.id,
    paid({ subscriptionId: `sub_${n}`, occurredAt: '2030-01-15T09:00:00Z', paidUntil: '2030-02-15T09:00:00Z', customer: { providerCustomerId: null, email: `c${n}@example.test`, name: `C ${n}` } }),
  );

describe('license-key e-mails', () => {
  it('a new license from a webhook asks for its key e-mail, with everything needed to send it', async () => {
    const result = await buy(1);
    const mail = await t.engine.getKeyEmail(result.keyEmail!.licenseId);
    const license = await t.engine.getLicense(c.account.id, result.licenseId!);
    expect(mail).toEqual({
      licenseId: license.id,
      to: 'c1@example.test',
      customerName: 'C 1',
      key: license.key,
      locale: 'fr',
      product: { id: c.product.id, name: 'Acme Editor' },
      sender: { name: 'Acme Sales', email: 'sales@acme.test', replyTo: null },
    });
  });

  it('only one send per license runs at a time; release ends it; an abandoned one expires after a minute', async () => {
    const { licenseId } = (await buy(1)).keyEmail!;
    expect(await codeOf(t.engine.reserveKeyEmail(c.account.id, licenseId))).toBe('key_email_in_progress');
    await t.engine.releaseKeyEmail(licenseId);
    await t.engine.reserveKeyEmail(c.account.id, licenseId);
    await t.engine.releaseKeyEmail(licenseId);
    // The budget of 2 per hour is used: the webhook's e-mail and this one.
    expect(await codeOf(t.engine.reserveKeyEmail(c.account.id, licenseId))).toBe('rate_limited');
    t.clock.advance(3_600_000);
    await t.engine.reserveKeyEmail(c.account.id, licenseId);
    t.clock.advance(59_000);
    expect(await codeOf(t.engine.reserveKeyEmail(c.account.id, licenseId))).toBe('key_email_in_progress');
    t.clock.advance(1_000);
    await t.engine.reserveKeyEmail(c.account.id, licenseId);
  });

  it('beyond the hourly budget a webhook is rate_limited and changes nothing, so the retry creates the license', async () => {
    await buy(1);
    await buy(2);
    expect(await codeOf(buy(3))).toBe('rate_limited');
    expect((await t.engine.listLicenses(c.account.id)).data).toHaveLength(2);
    t.clock.advance(3_600_000);
    expect((await buy(3)).result).toBe('processed');
  });

  it('manual creation with sendEmail counts against the budget too; send-key of a revoked license is conflict', async () => {
    const { license, sendKeyEmail } = await t.engine.createLicense(c.account.id, { plan: c.plans.lifetime.id, email: 'm@example.test', sendEmail: true });
    expect(sendKeyEmail).toBe(true);
    await t.engine.releaseKeyEmail(license.id);
    await t.engine.reserveKeyEmail(c.account.id, license.id);
    await t.engine.releaseKeyEmail(license.id);
    expect(await codeOf(t.engine.reserveKeyEmail(c.account.id, license.id))).toBe('rate_limited');
    expect(await codeOf(t.engine.createLicense(c.account.id, { plan: c.plans.lifetime.id, email: 'n@example.test', sendEmail: true }))).toBe('rate_limited');
    await t.engine.revokeLicense(c.account.id, license.id);
    expect(await codeOf(t.engine.reserveKeyEmail(c.account.id, license.id))).toBe('conflict');
  });
});
