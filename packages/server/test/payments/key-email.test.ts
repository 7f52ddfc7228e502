import { expect, it } from 'vitest';
import { DEFAULT_SERVICE_PLANS } from '@svc-licensing/license-engine';
import { createWorld, type World } from '../support/payment-world.js';
import { describeEveryStore } from '../support/harness.js';

const tiny = { ...DEFAULT_SERVICE_PLANS, tiny: { productLimit: null, licenseLimit: null, keyEmailsPerHour: 1 } };

/** A license created by a provider_b order (its key e-mail already sent). */
async function orderedLicense(w: World) {
  const answer = await w.deliver('provider_b', 'order_created');
  expect(answer.body.keyEmail).toBe('sent');
  const [license] = await w.licenses();
  return license as { id: string };
}

describeEveryStore('license-key e-mails: hourly budget', (setup) => {
  it('answers 429 when the service plan budget is used up; the event is not processed and succeeds on a later retry', async () => {
    const w = await createWorld(setup, { servicePlan: 'tiny', servicePlans: tiny });
    await orderedLicense(w); // uses the one e-mail of this hour
    await w.deliver('provider_a', 'customer.created');
    const limited = await w.deliver('provider_a', 'transaction.completed');
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await w.licenses()).toHaveLength(1); // nothing half-done
    expect(w.smtp.messages).toHaveLength(1);

    w.clock.advance(3_600_000);
    const retried = await w.deliver('provider_a', 'transaction.completed');
    expect(retried.body).toMatchObject({ result: 'processed', keyEmail: 'sent' });
    expect(await w.licenses()).toHaveLength(2);
    await w.smtp.waitFor(2);
  });

  it('send-key counts against the same budget', async () => {
    const w = await createWorld(setup, { servicePlan: 'tiny', servicePlans: tiny });
    const license = await orderedLicense(w);
    const limited = await w.api('POST', `/licenses/${license.id}/send-key`);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    w.clock.advance(3_600_000);
    expect((await w.api('POST', `/licenses/${license.id}/send-key`)).status).toBe(200);
    await w.smtp.waitFor(2);
  });
});

describeEveryStore('license-key e-mails: one send per license at a time', (setup) => {
  it('send-key gets 409 while the webhook is still sending the key, and works once it is done', async () => {
    const w = await createWorld(setup);
    const held = w.smtp.hold();
    const delivery = w.deliver('provider_b', 'order_created');
    await held.arrived;
    const [license] = await w.licenses();
    const busy = await w.api('POST', `/licenses/${license.id}/send-key`);
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('conflict'); // the vendor API's 409 code (docs/decisions.md)
    held.release();
    expect((await delivery).body).toMatchObject({ result: 'processed', keyEmail: 'sent' });

    const again = await w.api('POST', `/licenses/${license.id}/send-key`);
    expect(again.status).toBe(200);
    const mails = await w.smtp.waitFor(2);
    const detail = (await w.api('GET', `/licenses/${license.id}`)).body;
    expect(mails.map((m) => m.envelope.to[0])).toEqual(['grace@example.com', 'grace@example.com']);
    expect(mails[1]!.mail.text).toContain(detail.key);
  });

  it('an abandoned reservation expires after one minute', async () => {
    const w = await createWorld(setup);
    const license = await orderedLicense(w);
    const held = w.smtp.hold();
    const stuck = w.api('POST', `/licenses/${license.id}/send-key`);
    await held.arrived;
    expect((await w.api('POST', `/licenses/${license.id}/send-key`)).status).toBe(409);
    w.clock.advance(59_000);
    expect((await w.api('POST', `/licenses/${license.id}/send-key`)).status).toBe(409);
    w.clock.advance(2_000);
    expect((await w.api('POST', `/licenses/${license.id}/send-key`)).status).toBe(200);
    held.release();
    expect((await stuck).status).toBe(200);
  });

  it('a failed send releases the reservation: the next send-key goes through at once', async () => {
    const w = await createWorld(setup);
    w.smtp.refuse = true;
    const answer = await w.deliver('provider_b', 'order_created');
    expect(answer.body).toMatchObject({ result: 'processed', keyEmail: 'failed' });
    const [license] = await w.licenses();
    const failed = await w.api('POST', `/licenses/${license.id}/send-key`);
    expect(failed.status).toBe(500);
    expect(failed.body.error.code).toBe('internal_error');

    w.smtp.refuse = false;
    const sent = await w.api('POST', `/licenses/${license.id}/send-key`);
    expect(sent.status).toBe(200);
    const [mail] = await w.smtp.waitFor(1);
    expect(mail!.mail.subject).toBe('Your license key for Acme Editor');
  });

  it('a send the mail server fails answers 500 internal_error saying what the mail server answered, not a bare internal error', async () => {
    const w = await createWorld(setup);
    const license = await orderedLicense(w);
    w.smtp.failData = 500;
    const failed = await w.api('POST', `/licenses/${license.id}/send-key`);
    expect(failed.status).toBe(500);
    expect(failed.body).toEqual({
      error: {
        code: 'internal_error',
        message: "The license-key e-mail could not be sent: the mail server answered 500 to DATA. Retry later; if it keeps failing, the service's operator finds the mail server's full answer in the log.",
      },
    });
    w.smtp.failData = null;
    w.smtp.refuse = true;
    const refused = await w.api('POST', `/licenses/${license.id}/send-key`);
    expect(refused.status).toBe(500);
    expect(refused.body.error.message).toMatch(/^The license-key e-mail could not be sent: the mail server answered 550 to RCPT TO\. /);
    w.smtp.refuse = false;
    expect((await w.api('POST', `/licenses/${license.id}/send-key`)).status).toBe(200);
    await w.smtp.waitFor(2);
  });

  it('a retried delivery of a processed event sends no second e-mail', async () => {
    const w = await createWorld(setup);
    await orderedLicense(w);
    expect((await w.deliver('provider_b', 'order_created')).body.result).toBe('duplicate');
    await w.smtp.waitFor(1);
    expect(w.smtp.messages).toHaveLength(1);
  });
});

describeEveryStore('license-key e-mails: content', (setup) => {
  it("names the license's plan", async () => {
    const w = await createWorld(setup);
    w.clock.set('2024-06-05T12:00:00Z');
    await w.deliver('provider_b', 'subscription_created'); // plan `pro`, named "Pro"
    await w.deliver('provider_b', 'order_created'); // plan `lifetime`, named "Lifetime"
    const mails = await w.smtp.waitFor(2);
    const texts = mails.map((m) => m.mail.text ?? '');
    expect(texts.filter((t) => t.includes('Plan: Pro\n'))).toHaveLength(1);
    expect(texts.filter((t) => t.includes('Plan: Lifetime\n'))).toHaveLength(1);
    expect(mails.every((m) => String(m.mail.html).includes('Plan: '))).toBe(true);
  });
});

describeEveryStore('license-key e-mails: vendor API', (setup) => {
  it("POST /licenses with sendEmail and send-key e-mail the key in the license's language", async () => {
    const w = await createWorld(setup, { defaultLocale: 'en' });
    const plans = (await w.api('GET', `/products/${w.productId}/plans`)).body.data as { id: string; code: string }[];
    const created = await w.api('POST', '/licenses', {
      plan: plans.find((p) => p.code === 'lifetime')!.id,
      email: 'Zoe@Example.com',
      name: 'Zoé',
      sendEmail: true,
      locale: 'fr',
    });
    expect(created.status).toBe(201);
    const [first] = await w.smtp.waitFor(1);
    expect(first!.envelope.to).toEqual(['zoe@example.com']);
    expect(first!.mail.subject).toBe('Votre clé de licence pour Acme Editor');
    expect(first!.mail.text).toContain('Bonjour Zoé,');
    expect(first!.mail.text).toContain(created.body.key);

    expect((await w.api('POST', `/licenses/${created.body.id}/send-key`)).status).toBe(200);
    const [, second] = await w.smtp.waitFor(2);
    expect(second!.mail.headers.get('content-language')).toBe('fr');
    expect(second!.mail.from?.value).toEqual([{ name: 'Acme Licensing', address: 'licenses@acme.test' }]);
    expect(second!.mail.text).toContain(created.body.key);
  });

  it('without sendEmail no e-mail is sent', async () => {
    const w = await createWorld(setup);
    const plans = (await w.api('GET', `/products/${w.productId}/plans`)).body.data as { id: string; code: string }[];
    expect((await w.api('POST', '/licenses', { plan: plans.find((p) => p.code === 'lifetime')!.id, email: 'a@example.com' })).status).toBe(201);
    await orderedLicense(w); // a later e-mail proves the first would have arrived before it
    await w.smtp.waitFor(1);
    expect(w.smtp.messages.map((m) => m.envelope.to[0])).toEqual(['grace@example.com']);
  });
});

describeEveryStore('license-key e-mails: closed account', (setup) => {
  it('payments are still applied but no key is e-mailed', async () => {
    const w = await createWorld(setup);
    await w.engine.closeAccount(w.accountId);
    const answer = await w.deliver('provider_b', 'order_created');
    expect(answer.status).toBe(200);
    expect(answer.body.result).toBe('processed');
    expect(answer.body.keyEmail).toBeUndefined();
    const page = await w.engine.listLicenses(w.accountId, { cursor: null });
    expect(page.data).toHaveLength(1);
    expect(w.smtp.messages).toHaveLength(0);
  });
});
