import { createMemoryStore, type Store } from '@svc-licensing/license-engine';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Catalog, TestEngine } from './fixtures.js';
import { changed, codeOf, createCatalog, createTestEngine, paid, refusedCode } from './fixtures.js';

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

/** Replaces the engine with one without an e-mail budget whose store counts its units of work. */
async function useCountingEngine(): Promise<{ count: number }> {
  const memory = createMemoryStore();
  const units = { count: 0 };
  const counting: Store = {
    transaction: (work, options) => {
      units.count++;
      return memory.transaction(work, options);
    },
    close: () => memory.close(),
  };
  t = createTestEngine({ store: counting, servicePlans: { pro: { productLimit: 10, licenseLimit: null, keyEmailsPerHour: null } } });
  c = await createCatalog(t);
  return units;
}

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
      planName: c.plans.pro.name,
      sender: { name: 'Acme Sales', email: 'sales@acme.test', replyTo: null, dkim: null },
      portalAccountId: expect.stringMatching(/^acc_/),
      customPortalUrl: null,
    });
    // The unit of work that reserved it built the same e-mail: the host sends it without a read.
    expect(result.keyEmail!.email).toEqual(mail);
  });

  it("carries the plan's current name, for the e-mail's plan line", async () => {
    const { licenseId } = (await buy(1)).keyEmail!;
    await t.engine.releaseKeyEmail(licenseId);
    await t.engine.updatePlan(c.account.id, c.plans.pro.id, { name: 'Pro (yearly)' });
    expect((await t.engine.reserveKeyEmail(c.account.id, licenseId)).planName).toBe('Pro (yearly)');
  });

  it('releases asked for while another is written end every reservation, together in one more unit of work', async () => {
    const units = await useCountingEngine();
    const licenseIds: string[] = [];
    for (let n = 1; n <= 6; n++) licenseIds.push((await buy(n)).keyEmail!.licenseId);
    expect(await codeOf(t.engine.reserveKeyEmail(c.account.id, licenseIds[5]!))).toBe('key_email_in_progress');
    units.count = 0;
    await Promise.all(licenseIds.map((id) => t.engine.releaseKeyEmail(id)));
    // The first release is written at once, the five asked for meanwhile together after it.
    expect(units.count).toBe(2);
    for (const id of licenseIds) await t.engine.reserveKeyEmail(c.account.id, id);
  });

  it("a release asked for while a webhook's unit runs is written with that unit's commit, not in a unit of its own", async () => {
    const units = await useCountingEngine();
    const first = (await buy(1)).keyEmail!.licenseId;
    units.count = 0;
    const [second] = await Promise.all([buy(2), t.engine.releaseKeyEmail(first)]);
    expect(units.count).toBe(1); // the purchase's unit, which ended the first reservation too
    await t.engine.reserveKeyEmail(c.account.id, first);
    // The second purchase's own reservation is held until its release.
    expect(await codeOf(t.engine.reserveKeyEmail(c.account.id, second.keyEmail!.licenseId))).toBe('key_email_in_progress');
  });

  it('a release waiting for a webhook unit that is refused is written after it, in a unit of its own', async () => {
    const first = (await buy(1)).keyEmail!.licenseId;
    await buy(2); // the budget of 2 per hour is used: the next purchase is refused
    const [refused] = await Promise.all([buy(3), t.engine.releaseKeyEmail(first)]);
    expect(refused).toMatchObject({ result: 'refused', code: 'rate_limited' });
    // Ended: the next send is refused for the budget, no longer for a send in progress.
    expect(await codeOf(t.engine.reserveKeyEmail(c.account.id, first))).toBe('rate_limited');
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
    expect(await refusedCode(buy(3))).toBe('rate_limited');
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

describe('license-key e-mails: re-subscription', () => {
  const expire = (n: number) =>
    t.engine.applyPaymentCommand(
      c.providerB.id,
      changed({ subscriptionId: `sub_${n}`, status: 'expired', occurredAt: '2030-03-01T00:00:00Z', customer: { providerCustomerId: null, email: `c${n}@example.test`, name: `C ${n}` } }),
    );
  const resubscribe = (eventId = 'evt_resub') =>
    t.engine.applyPaymentCommand(
      c.providerB.id,
      paid({ eventId, subscriptionId: 'sub_again', occurredAt: '2030-04-01T00:00:00Z', paidUntil: '2030-05-01T00:00:00Z', customer: { providerCustomerId: null, email: 'c1@example.test', name: 'C 1' } }),
    );

  it('re-subscribing after expiry e-mails the same key again', async () => {
    const first = await buy(1);
    await t.engine.releaseKeyEmail(first.licenseId!);
    await expire(1);
    t.clock.set('2030-04-01T00:00:00Z');
    const again = await resubscribe();
    expect(again).toMatchObject({ result: 'processed', licenseId: first.licenseId, keyEmail: { licenseId: first.licenseId } });
    const mail = await t.engine.getKeyEmail(first.licenseId!);
    expect(mail.key).toBe((await t.engine.getLicense(c.account.id, first.licenseId!)).key);
  });

  it('while a send for that license is in progress, the re-subscription is key_email_in_progress and changes nothing; its retry after release is processed', async () => {
    const first = await buy(1);
    await t.engine.releaseKeyEmail(first.licenseId!);
    await expire(1);
    t.clock.set('2030-04-01T00:00:00Z');
    await t.engine.reserveKeyEmail(c.account.id, first.licenseId!); // a send-key in progress
    expect(await refusedCode(resubscribe())).toBe('key_email_in_progress');
    const held = await t.engine.getLicense(c.account.id, first.licenseId!);
    expect([held.status, held.paidUntil]).toEqual(['expired', '2030-02-15T09:00:00Z']);

    await t.engine.releaseKeyEmail(first.licenseId!);
    const retry = await resubscribe(); // same event ID: not marked processed by the refused delivery
    expect(retry).toMatchObject({ result: 'processed', licenseId: first.licenseId, keyEmail: { licenseId: first.licenseId } });
    expect((await t.engine.getLicense(c.account.id, first.licenseId!)).status).toBe('active');
  });

  it('in a closed account the re-subscription is applied but no key is e-mailed', async () => {
    const first = await buy(1);
    await t.engine.releaseKeyEmail(first.licenseId!);
    await expire(1);
    await t.engine.closeAccount(c.account.id);
    t.clock.set('2030-04-01T00:00:00Z');
    expect(await resubscribe()).toMatchObject({ result: 'processed', licenseId: first.licenseId, keyEmail: null });
  });
});
