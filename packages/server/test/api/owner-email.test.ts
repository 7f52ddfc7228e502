import { afterEach, expect, it } from 'vitest';
import { createHarness, describeEveryStore, PUBLIC_BASE_URL, PUBLIC_ORIGIN, type Harness } from '../support/harness.js';
import { startSmtpCapture, type SmtpCapture } from '../support/smtp-capture.js';

// The owner changes the account's owner address (issue 26): confirmed by a link e-mailed to the
// new address, applied only when it is used, the old address told, audited.

const smtps: SmtpCapture[] = [];
afterEach(async () => {
  for (const smtp of smtps.splice(0)) await smtp.close();
});

async function world(setup: Parameters<typeof createHarness>[0]) {
  const smtp = await startSmtpCapture({ starttls: false });
  smtps.push(smtp);
  const h = await createHarness(setup, {}, { smtp });
  return { h, smtp };
}

/** The confirmation link in the newest e-mail to `to`, as a path of the app. */
function confirmationTo(smtp: SmtpCapture, to: string): string {
  const mail = smtp.messages.filter((m) => m.envelope.to.includes(to)).at(-1);
  const match = new RegExp(`${PUBLIC_BASE_URL.replace(/\./g, '\\.')}(/confirm-owner-email\\?token=[^\\s]+)`).exec(mail?.mail.text ?? '');
  if (!match) throw new Error(`no confirmation link e-mailed to ${to}`);
  return match[1]!;
}

async function page(h: Harness, path: string, method: 'GET' | 'POST') {
  const res = await h.fetch(path, { method, headers: method === 'POST' ? { origin: PUBLIC_ORIGIN } : {}, redirect: 'manual' });
  return { status: res.status, text: await res.text() };
}

describeEveryStore('changing the owner address over HTTP', (setup) => {
  it('applies the new address only when the link e-mailed to it is used, tells the old address, audits it, and keeps the owner signed in', async () => {
    const { h, smtp } = await world(setup);
    const owner = await h.signIn();
    const old = owner.email;
    const asked = await h.api('POST', '/account/owner-email', { email: 'Ada@New-Owner.test' }, { session: owner });
    expect(asked.status).toBe(202);
    expect(asked.body).toEqual({ email: 'ada@new-owner.test', expiresAt: expect.stringMatching(/Z$/) });
    expect(Date.parse(asked.body.expiresAt) - h.clock.now()).toBe(24 * 3_600_000);
    await smtp.waitFor(1);
    const link = confirmationTo(smtp, 'ada@new-owner.test');
    expect(smtp.messages[0]!.mail.subject).toContain('Confirm the new owner address');
    // Nothing changes before the link is used, nor when a mail scanner opens it.
    expect((await h.api('GET', '/account')).body.ownerEmail).toBe(old);
    const shown = await page(h, link, 'GET');
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('Confirm the new address');
    expect((await h.api('GET', '/account')).body.ownerEmail).toBe(old);

    const used = await page(h, link, 'POST');
    expect(used.status).toBe(200);
    expect(used.text).toContain('ada@new-owner.test is now the owner address');
    await h.settled();
    expect((await h.api('GET', '/account')).body.ownerEmail).toBe('ada@new-owner.test');
    const notice = smtp.messages.find((m) => m.envelope.to.includes(old));
    expect(notice?.mail.subject).toContain('owner address of Vendor changed');
    expect(notice?.mail.text).toContain('ada@new-owner.test');
    const events = (await h.api('GET', '/events')).body.data.filter((e: { type: string }) => e.type === 'account.owner_email_changed');
    expect(events.map((e: { data: unknown }) => e.data)).toEqual([{ from: old, to: 'ada@new-owner.test' }]);
    // The owner's session follows the address; the old address no longer signs in.
    const who = await h.api('GET', '/session', undefined, { session: owner });
    expect(who.body).toMatchObject({ email: 'ada@new-owner.test', role: 'owner' });
    expect((await h.engine.requestSignInLinks(old))).toEqual([]);
    expect((await h.engine.requestSignInLinks('ada@new-owner.test')).map((l) => l.accountId)).toEqual([h.accountId]);
    // The link works once.
    expect((await page(h, link, 'POST')).status).toBe(410);
  });

  it('is the owner session\'s alone, refuses the owner\'s or a member\'s address, and a new request replaces the pending one', async () => {
    const { h, smtp } = await world(setup);
    const owner = await h.signIn();
    const member = await h.signIn({ role: 'member' });
    const byKey = await h.api('POST', '/account/owner-email', { email: 'eve@evil.test' });
    expect(byKey.status).toBe(400);
    expect(byKey.body.error.code).toBe('owner_session_required');
    expect((await h.api('POST', '/account/owner-email', { email: 'eve@evil.test' }, { session: member })).status).toBe(403);
    const bad = await h.api('POST', '/account/owner-email', { email: 'not an address' }, { session: owner });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_request');
    const same = await h.api('POST', '/account/owner-email', { email: owner.email }, { session: owner });
    expect(same.status).toBe(409);
    const taken = await h.api('POST', '/account/owner-email', { email: member.email }, { session: owner });
    expect(taken.status).toBe(409);
    expect(taken.body.error.message).toContain('member');
    expect(smtp.messages).toHaveLength(0);

    expect((await h.api('POST', '/account/owner-email', { email: 'first@new.test' }, { session: owner })).status).toBe(202);
    expect((await h.api('POST', '/account/owner-email', { email: 'second@new.test' }, { session: owner })).status).toBe(202);
    await smtp.waitFor(2);
    expect((await page(h, confirmationTo(smtp, 'first@new.test'), 'POST')).status).toBe(404);
    expect((await h.api('GET', '/account')).body.ownerEmail).toBe(owner.email);
    // A link of another kind is not a sign-in link, nor the other way round.
    const second = confirmationTo(smtp, 'second@new.test');
    expect((await page(h, second.replace('/confirm-owner-email', '/sign-in'), 'POST')).status).toBe(404);
    expect((await page(h, second, 'POST')).status).toBe(200);
    expect((await h.api('GET', '/account')).body.ownerEmail).toBe('second@new.test');
  });

  it('applies a link used twice at once only once: one change, one audit event, one notice', async () => {
    const { h, smtp } = await world(setup);
    const owner = await h.signIn();
    expect((await h.api('POST', '/account/owner-email', { email: 'race@new.test' }, { session: owner })).status).toBe(202);
    await smtp.waitFor(1);
    const link = confirmationTo(smtp, 'race@new.test');
    const answers = await Promise.all([page(h, link, 'POST'), page(h, link, 'POST'), page(h, link, 'POST')]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 410, 410]);
    await h.settled();
    const events = (await h.api('GET', '/events')).body.data.filter((e: { type: string }) => e.type === 'account.owner_email_changed');
    expect(events).toHaveLength(1);
    expect(smtp.messages.filter((m) => m.envelope.to.includes(owner.email))).toHaveLength(1);
  });
});
