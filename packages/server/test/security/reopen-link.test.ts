import { CLOSURE_DAYS, createSecretBox, cryptoRandom, sealOperatorReopenLink, sealOperatorSignInLink } from '@svc-licensing/license-engine';
import { expect, it } from 'vitest';
import { describeEverySetup, PUBLIC_ORIGIN, type Harness } from '../support/harness.js';
import { createPortalHarness, mailsTo, waitForMail, type PortalHarness } from '../support/portal.js';

/**
 * Issue 25, should fix: a lost reopen e-mail lost the account. The owner of a closed account asks
 * the sign-in page (`POST /v1/session/link`) with the owner's address and is mailed a new reopen
 * link; the operator prints one (`owner reopen-link`, sealed like the operator's sign-in link);
 * both only within the 30 days after the closure.
 */

const DAY = 86_400_000;

/** The reopen link in the newest e-mail to `email`, as a path. */
function reopenPathIn(h: PortalHarness, email: string): string {
  const text = mailsTo(h, email).at(-1)?.mail.text ?? '';
  const url = /https:\/\/licensing\.example\.test\/reopen\?token=[A-Za-z0-9_%-]+/.exec(text)?.[0];
  if (!url) throw new Error(`no reopen link in: ${text}`);
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

const post = async (h: Harness, path: string) => {
  const res = await h.fetch(path, { method: 'POST', headers: { origin: PUBLIC_ORIGIN }, redirect: 'manual' });
  await res.text();
  return { status: res.status, cookie: /^(svc_session=[^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? null };
};

const askLink = (h: Harness, email: string) =>
  h.fetch('/v1/session/link', { method: 'POST', headers: { 'content-type': 'application/json', origin: PUBLIC_ORIGIN }, body: JSON.stringify({ email }) });

/** Closes a new account with a member, the reopen link mailed at closure thrown away (lost). */
async function closedAccount(h: PortalHarness) {
  const { accountId } = await h.newAccount();
  const owner = (await h.api('GET', '/account', undefined, { session: await h.signIn({ accountId }) })).body.ownerEmail as string;
  const member = await h.signIn({ accountId, role: 'member' });
  await h.engine.closeAccount(accountId);
  return { accountId, owner, member: member.email };
}

describeEverySetup('a new reopen link for a closed account', (setup) => {
  it("the owner asks the sign-in page with the owner's address and is mailed a reopen link that reopens the account and signs in, once", async () => {
    const h = await createPortalHarness(setup);
    const { accountId, owner, member } = await closedAccount(h);

    expect((await askLink(h, owner)).status).toBe(202);
    expect((await askLink(h, member)).status).toBe(202);
    await h.settled();
    await waitForMail(h, owner, 1);
    expect(mailsTo(h, owner)[0]!.mail.subject).toContain('reopen');
    // A member of the closed account is sent nothing: reopening is the owner's.
    expect(mailsTo(h, member)).toEqual([]);

    const path = reopenPathIn(h, owner);
    expect((await post(h, path.replace('/reopen?', '/sign-in?'))).status).toBe(404); // not a sign-in link
    const reopened = await post(h, path);
    expect(reopened.status).toBe(303);
    const who = await h.fetch('/v1/session', { headers: { cookie: reopened.cookie! } });
    expect(await who.json()).toMatchObject({ accountId, role: 'owner' });
    expect((await h.engine.getAccount(accountId)).status).toBe('open');
    expect((await post(h, path)).status).toBe(410);
    // Open again, the same request signs in as usual.
    expect((await askLink(h, owner)).status).toBe(202);
    await h.settled();
    await waitForMail(h, owner, 2);
    expect(mailsTo(h, owner)[1]!.mail.text).toContain('/sign-in?token=');
  });

  it('a requested link lives a day, and none is mailed nor accepted after the 30 days', async () => {
    const h = await createPortalHarness(setup);
    const { accountId, owner } = await closedAccount(h);
    expect((await askLink(h, owner)).status).toBe(202);
    await h.settled();
    const stale = reopenPathIn(h, owner);
    h.clock.advance(DAY + 1000);
    expect((await post(h, stale)).status).toBe(410);

    h.clock.advance((CLOSURE_DAYS - 1.5) * DAY - 1000); // day 29.5 of the closure
    expect((await askLink(h, owner)).status).toBe(202);
    await h.settled();
    const late = reopenPathIn(h, owner);
    expect(late).not.toBe(stale);
    h.clock.advance(0.6 * DAY); // past the 30 days, within the link's day: it dies with them
    expect((await post(h, late)).status).toBe(410);
    const mailed = mailsTo(h, owner).length;
    expect((await askLink(h, owner)).status).toBe(202);
    await h.settled();
    expect(mailsTo(h, owner)).toHaveLength(mailed);
    expect((await h.engine.getAccount(accountId)).status).toBe('closed');
  });

  it("the operator's reopen link reopens the account once, is no sign-in link, and is refused for an open account or after the 30 days", async () => {
    const h = await createPortalHarness(setup);
    const deps = { secrets: createSecretBox(h.masterKey), clock: h.clock, random: cryptoRandom };
    const { accountId } = await closedAccount(h);
    const { token } = sealOperatorReopenLink(deps, accountId);
    const path = `/reopen?token=${encodeURIComponent(token)}`;

    // Not a sign-in link, and a sign-in link is not a reopen link.
    expect((await post(h, `/sign-in?token=${encodeURIComponent(token)}`)).status).toBe(404);
    expect((await post(h, `/reopen?token=${encodeURIComponent(sealOperatorSignInLink(deps, accountId).token)}`)).status).toBe(404);
    const [first, second] = await Promise.all([post(h, path), post(h, path)]);
    expect([first.status, second.status].sort()).toEqual([303, 410]);
    expect((await h.engine.getAccount(accountId)).status).toBe('open');
    // An open account has nothing to reopen.
    expect((await post(h, `/reopen?token=${encodeURIComponent(sealOperatorReopenLink(deps, accountId).token)}`)).status).toBe(409);

    // A link printed on day 29.9 is refused once the 30 days are over, though the link itself lives a day.
    const late = await closedAccount(h);
    h.clock.advance(CLOSURE_DAYS * DAY - DAY / 10);
    const printed = sealOperatorReopenLink(deps, late.accountId).token;
    h.clock.advance(DAY / 5);
    expect((await post(h, `/reopen?token=${encodeURIComponent(printed)}`)).status).toBe(410);
    expect((await h.engine.getAccount(late.accountId)).status).toBe('closed');
  });
});
