import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { fingerprint, licensed } from '../support/fixtures.js';
import { describeEverySetup, PUBLIC_ORIGIN, type Harness } from '../support/harness.js';
import { createPortalHarness, mailsTo, portalCall, signInCustomer, waitForMail } from '../support/portal.js';

/**
 * Issue 25, should fix: link requests and invitations, the requests reached before anyone signs in.
 * - The lookup of a link request (the store read, the link built) starts after the answer is
 *   written: a known address answered later than an unknown one by the lookup's cost.
 * - The portal's per-address limit is counted per account: requests naming a made-up account
 *   spent the address's budget in every portal.
 * - Freeing another customer's machine and a machine that does not exist get one answer.
 * - Invitations to one address are bounded (invite, remove, invite again mailed it without end).
 */

const run = promisify(execFile);
const SLOW_LOOKUP_MS = 1500;

/** Blocks the event loop, as a lookup's synchronous work does, for `ms`. */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy on purpose: the cost the answer must not wait for
  }
}

/**
 * Posts JSON and measures how long the answer took to arrive. Against a listening server this is
 * curl, another process, so it sees the answer when the server writes it even while the server's
 * event loop is busy afterwards; in-process it is the time until the app's Response exists.
 */
async function timedPost(h: Harness, path: string, body: unknown): Promise<{ status: number; ms: number }> {
  if (h.url !== null) {
    const { stdout } = await run('curl', [
      '-s', '-o', '/dev/null', '-w', '%{http_code} %{time_total}', '-X', 'POST', '-H', 'content-type: application/json',
      '-H', `origin: ${PUBLIC_ORIGIN}`, '--data', JSON.stringify(body), `${h.url}${path}`,
    ]);
    const [status, seconds] = stdout.trim().split(' ');
    return { status: Number(status), ms: Number(seconds) * 1000 };
  }
  const started = performance.now();
  const res = await h.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', origin: PUBLIC_ORIGIN }, body: JSON.stringify(body) });
  const ms = performance.now() - started;
  await res.text();
  return { status: res.status, ms };
}

describeEverySetup('link requests before sign-in', (setup) => {
  it('a known address is answered before its lookup runs: a slow lookup does not delay the 202, and the e-mail still goes', async () => {
    const h = await createPortalHarness(setup);
    const owner = (await h.api('GET', '/account')).body.ownerEmail as string;
    await licensed(h);
    const engine = h.engine as unknown as Record<string, (...args: unknown[]) => unknown>;
    for (const name of ['requestSignInLinks', 'requestPortalLink']) {
      const original = engine[name]!;
      engine[name] = (...args: unknown[]) => {
        spin(SLOW_LOOKUP_MS);
        return original(...args);
      };
    }

    const signIn = await timedPost(h, '/v1/session/link', { email: owner });
    expect(signIn.status).toBe(202);
    expect(signIn.ms).toBeLessThan(SLOW_LOOKUP_MS / 2);
    const portal = await timedPost(h, `/v1/portal/${h.accountId}/session/link`, { email: 'buyer@example.com' });
    expect(portal.status).toBe(202);
    expect(portal.ms).toBeLessThan(SLOW_LOOKUP_MS / 2);

    await h.settled();
    await waitForMail(h, owner, 1);
    await waitForMail(h, 'buyer@example.com', 1);
  });

  it("requests naming a made-up account do not spend the address's budget in a real portal; the real portal's own limit holds", async () => {
    const h = await createPortalHarness(setup);
    await licensed(h);
    const victim = 'buyer@example.com';
    const ask = (accountId: string) =>
      h.fetch(`/v1/portal/${accountId}/session/link`, {
        method: 'POST', headers: { 'content-type': 'application/json', origin: PUBLIC_ORIGIN },
        body: JSON.stringify({ email: victim }),
      }).then(async (res) => (await res.text(), res.status));

    const madeUp: number[] = [];
    for (let i = 0; i < 8; i++) madeUp.push(await ask('acc_00000000000000000000000000'));
    expect(madeUp.slice(0, 5)).toEqual([202, 202, 202, 202, 202]);
    expect(madeUp.slice(5)).toEqual([429, 429, 429]);

    // The customer still gets a link from the vendor's portal.
    const customer = await signInCustomer(h, h.accountId, victim);
    expect(customer.cookie).toMatch(/^svc_portal_/);
    // And that portal's own bound per address still holds (4 more, then 429).
    const own: number[] = [];
    for (let i = 0; i < 5; i++) own.push(await ask(h.accountId));
    expect(own).toEqual([202, 202, 202, 202, 429]);
    await h.settled();
    expect(mailsTo(h, victim)).toHaveLength(5);
  });

  it("freeing another customer's machine answers exactly as freeing one that does not exist, and frees nothing", async () => {
    const h = await createPortalHarness(setup);
    const { product, plan } = await licensed(h);
    const zoeLicense = await h.api('POST', '/licenses', { plan: plan.id, email: 'zoe@example.com', paidUntil: '2026-03-01T00:00:00Z' });
    expect(zoeLicense.status, JSON.stringify(zoeLicense.body)).toBe(201);
    const activated = await h.client('activate', { product: product.id, key: zoeLicense.body.key, fingerprint: fingerprint(product.id, 7), name: 'Zoe PC', platform: 'linux', appVersion: '2.1.0' });
    expect(activated.status, JSON.stringify(activated.body)).toBe(200);
    const zoesMachine = activated.body.activation as string;
    const made = zoesMachine.replace(/.$/, (c) => (c === '0' ? '1' : '0'));

    const ada = await signInCustomer(h, h.accountId, 'buyer@example.com');
    const other = await portalCall(h, ada, 'DELETE', `/activations/${zoesMachine}`);
    const none = await portalCall(h, ada, 'DELETE', `/activations/${made}`);
    expect(other.status).toBe(404);
    expect(none.status).toBe(404);
    expect(other.body.error.code).toBe(none.body.error.code);
    expect(other.body.error.message.replace(zoesMachine, '{id}')).toBe(none.body.error.message.replace(made, '{id}'));
    expect((await h.api('GET', `/licenses/${zoeLicense.body.id}`)).body.activationCount).toBe(1);
  });

  it('invitations to one address are bounded across accounts: the 6th in an hour is 429 and adds no member; the next hour works', async () => {
    const h = await createPortalHarness(setup);
    const invitee = 'invited@example.com';
    const other = await h.newAccount('unlimited');
    const owners = [await h.signIn(), await h.signIn({ accountId: other.accountId })];
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const session = owners[i % 2]!;
      const invited = await h.api('POST', '/members', { email: invitee }, { session });
      statuses.push(invited.status);
      if (invited.status === 201) expect((await h.api('DELETE', `/members/${invited.body.id}`, undefined, { session })).status).toBe(200);
    }
    expect(statuses).toEqual([201, 201, 201, 201, 201]);
    const refused = await h.api('POST', '/members', { email: invitee }, { session: owners[0]! });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    expect((await h.api('GET', '/members')).body.data).toEqual([]);
    await h.settled();
    await waitForMail(h, invitee, 5);
    expect(mailsTo(h, invitee)).toHaveLength(5);
    // Other addresses are not held back, and the address's budget returns after the window.
    expect((await h.api('POST', '/members', { email: 'someone.else@example.com' }, { session: owners[0]! })).status).toBe(201);
    h.clock.advance(3_600_000 + 1000);
    expect((await h.api('POST', '/members', { email: invitee }, { session: owners[0]! })).status).toBe(201);
  });
});

