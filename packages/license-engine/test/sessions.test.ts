import { beforeEach, describe, expect, it } from 'vitest';
import { CLOSURE_DAYS, SESSION_LIFETIMES, sealOperatorSignInLink, storeSchema, type Collection } from '@svc-licensing/license-engine';
import type { TestEngine } from './fixtures.js';
import { DAY, codeOf, command, createCatalog, createTestEngine, createTestRandom, fingerprint, MASTER_KEY } from './fixtures.js';
import { createSecretBox } from '@svc-licensing/license-engine';

let t: TestEngine;

beforeEach(() => {
  t = createTestEngine();
});

/** Signs `email` (default: the owner) in through a fresh link; returns the session token. */
async function signIn(accountId: string, email?: string): Promise<string> {
  const link = await t.engine.issueSignInLink(accountId, email === undefined ? {} : { email });
  const outcome = await t.engine.useLink(link.token, 'sign_in');
  if (!outcome.ok) throw new Error(outcome.reason);
  return outcome.session.token;
}

describe('sign-in links', () => {
  it('a link is random, works once, for 15 minutes, and only its hash is stored', async () => {
    const c = await createCatalog(t);
    const link = await t.engine.issueSignInLink(c.account.id);
    expect(link.token).toMatch(/^svc_lt_[A-Za-z0-9_-]{43}$/);
    expect(link).toMatchObject({ email: 'owner@acme.test', purpose: 'sign_in', accountName: 'Acme' });
    const stored = await t.store.transaction((tx) => tx.findMany('linkTokens', { accountId: c.account.id }));
    expect(JSON.stringify(stored)).not.toContain(link.token);

    const first = await t.engine.useLink(link.token, 'sign_in');
    expect(first).toMatchObject({ ok: true, accountId: c.account.id, email: 'owner@acme.test' });
    expect(await t.engine.useLink(link.token, 'sign_in')).toEqual({ ok: false, reason: 'used' });
    expect(await t.engine.useLink(link.token, 'reopen')).toEqual({ ok: false, reason: 'unknown' });

    const late = await t.engine.issueSignInLink(c.account.id);
    t.clock.advance(SESSION_LIFETIMES.linkMs);
    expect(await t.engine.useLink(late.token, 'sign_in')).toEqual({ ok: false, reason: 'expired' });
    expect(await t.engine.useLink('svc_lt_' + 'x'.repeat(43), 'sign_in')).toEqual({ ok: false, reason: 'unknown' });
  });

  it('a link request finds owners and members of open accounts by e-mail, and nobody else', async () => {
    const c = await createCatalog(t);
    const other = await t.engine.createAccount({ name: 'Other', ownerEmail: 'boss@other.test' });
    await t.engine.addMember(other.account.id, { email: 'owner@acme.test' });
    const links = await t.engine.requestSignInLinks(' Owner@ACME.test ');
    expect(links.map((l) => l.accountId).sort()).toEqual([c.account.id, other.account.id].sort());
    expect(await t.engine.requestSignInLinks('nobody@acme.test')).toEqual([]);
    await t.engine.closeAccount(other.account.id);
    expect((await t.engine.requestSignInLinks('owner@acme.test')).map((l) => l.accountId)).toEqual([c.account.id]);
  });

  it('an operator link (sealed with the master key) works once, for 15 minutes, only under the same key', async () => {
    const c = await createCatalog(t);
    const deps = { secrets: createSecretBox(MASTER_KEY), clock: t.clock, random: createTestRandom('operator') };
    const sealed = sealOperatorSignInLink(deps, c.account.id);
    expect(await t.engine.useLink(sealed.token, 'sign_in')).toMatchObject({ ok: true, email: 'owner@acme.test' });
    expect(await t.engine.useLink(sealed.token, 'sign_in')).toEqual({ ok: false, reason: 'used' });
    const foreign = sealOperatorSignInLink({ ...deps, secrets: createSecretBox(new Uint8Array(32).fill(7)) }, c.account.id);
    expect(await t.engine.useLink(foreign.token, 'sign_in')).toEqual({ ok: false, reason: 'unknown' });
    const late = sealOperatorSignInLink(deps, c.account.id);
    t.clock.advance(SESSION_LIFETIMES.linkMs);
    expect(await t.engine.useLink(late.token, 'sign_in')).toEqual({ ok: false, reason: 'expired' });
    expect(await t.engine.useLink(sealOperatorSignInLink(deps, 'acc_missing').token, 'sign_in')).toEqual({ ok: false, reason: 'unknown' });
  });
});

describe('sessions and roles', () => {
  it('a session knows its role; removing a member ends their sessions; lifetimes are idle and absolute', async () => {
    const c = await createCatalog(t);
    const owner = await signIn(c.account.id);
    await t.engine.addMember(c.account.id, { email: 'Helper@Acme.test' });
    const member = await signIn(c.account.id, 'helper@acme.test');
    expect(await t.engine.authenticateSession(owner)).toMatchObject({ role: 'owner', email: 'owner@acme.test' });
    expect(await t.engine.authenticateSession(member)).toMatchObject({ role: 'member', email: 'helper@acme.test' });
    const stored = await t.store.transaction((tx) => tx.findMany('sessions', { accountId: c.account.id }));
    expect(JSON.stringify(stored)).not.toContain(owner);

    const [listed] = (await t.engine.listMembers(c.account.id)).data;
    await t.engine.removeMember(c.account.id, listed!.id);
    expect(await t.engine.authenticateSession(member)).toBeNull();
    expect(await codeOf(t.engine.issueSignInLink(c.account.id, { email: 'helper@acme.test' }))).toBe('not_found');

    t.clock.advance(SESSION_LIFETIMES.idleMs - 1000);
    expect(await t.engine.authenticateSession(owner)).not.toBeNull();
    t.clock.advance(SESSION_LIFETIMES.idleMs);
    expect(await t.engine.authenticateSession(owner)).toBeNull();
    expect(await t.engine.authenticateSession('svc_ses_' + 'y'.repeat(43))).toBeNull();
  });
});

describe('closure, reopening and purge', () => {
  it('closure ends sessions and links and yields a reopen link valid 30 days that reopens and signs in once', async () => {
    const c = await createCatalog(t);
    const owner = await signIn(c.account.id);
    const pending = await t.engine.issueSignInLink(c.account.id);
    const { account, reopenLink } = await t.engine.closeAccount(c.account.id);
    expect(account.status).toBe('closed');
    expect(reopenLink).toMatchObject({ purpose: 'reopen', email: 'owner@acme.test' });
    expect(Date.parse(reopenLink!.expiresAt) - t.clock.now()).toBe(CLOSURE_DAYS * DAY);
    expect(await t.engine.authenticateSession(owner)).toBeNull();
    expect(await t.engine.useLink(pending.token, 'sign_in')).toEqual({ ok: false, reason: 'unknown' });
    expect((await t.engine.closeAccount(c.account.id)).reopenLink).toBeNull();

    t.clock.advance(29 * DAY);
    const reopened = await t.engine.useLink(reopenLink!.token, 'reopen');
    expect(reopened).toMatchObject({ ok: true, purpose: 'reopen' });
    expect((await t.engine.getAccount(c.account.id)).status).toBe('open');
    expect(await t.engine.useLink(reopenLink!.token, 'reopen')).toEqual({ ok: false, reason: 'used' });
  });

  it('the purge deletes every record of an account closed 30 days ago, children first, and is idempotent', async () => {
    const c = await createCatalog(t);
    const { license } = await t.engine.createLicense(c.account.id, { plan: c.plans.pro.id, email: 'a@example.test', paidUntil: '2031-01-01T00:00:00Z' });
    await t.engine.activate({ product: c.product.id, key: license.key, fingerprint: fingerprint(1) });
    await t.engine.exportSigningKeys(c.account.id, c.product.id);
    await signIn(c.account.id);
    // A webhook purchase: its order claim and the hour's key e-mail budget are counters of the account, purged with it.
    const bought = await t.engine.applyPaymentCommand(
      c.providerA.id,
      command('purchase_completed', { provider: 'provider_a', customer: { providerCustomerId: null, email: 'b@example.test', name: null }, orderId: 'txn_1', priceId: 'pri_life', quantity: 1 }),
    );
    expect(bought.result).toBe('processed');
    expect(await t.store.transaction((tx) => tx.count('counters', { accountId: c.account.id }))).toBeGreaterThan(0);
    const kept = await createCatalog(t);
    await t.engine.closeAccount(c.account.id);
    expect((await t.engine.purgeClosedAccounts()).purged).toEqual([]);
    t.clock.advance(CLOSURE_DAYS * DAY);
    expect((await t.engine.purgeClosedAccounts()).purged).toEqual([c.account.id]);
    expect((await t.engine.purgeClosedAccounts()).purged).toEqual([]);
    for (const collection of Object.keys(storeSchema) as Collection[]) {
      if (collection === 'accounts') continue;
      if (!(storeSchema[collection].indexed as readonly string[]).includes('accountId')) continue;
      expect(await t.store.transaction((tx) => tx.count(collection, { accountId: c.account.id } as never)), collection).toBe(0);
    }
    expect(await codeOf(t.engine.getAccount(c.account.id))).toBe('not_found');
    expect((await t.engine.getAccount(kept.account.id)).name).toBe('Acme');
  });

  it('billing: no interval or period end on a self-hosted instance; the plan change is audited', async () => {
    const c = await createCatalog(t);
    expect(await t.engine.getBilling(c.account.id)).toEqual({ plan: 'pro', interval: null, status: 'active', currentPeriodEnd: null, cancelAt: null });
    await t.engine.changeServicePlan(c.account.id, 'unlimited');
    const events = (await t.engine.listEvents(c.account.id)).data.filter((e) => e.type === 'account.plan_changed');
    expect(events.map((e) => e.data)).toEqual([{ from: 'pro', to: 'unlimited' }]);
  });
});
