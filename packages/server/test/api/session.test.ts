import { expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { createSecretBox, cryptoRandom, sealOperatorSignInLink, SESSION_LIFETIMES } from '@svc-licensing/license-engine';
import { vendorRoutes } from '../../src/routes/index.js';
import { createProduct } from '../support/fixtures.js';
import { createHarness, describeEverySetup, PUBLIC_BASE_URL, PUBLIC_ORIGIN, type Harness } from '../support/harness.js';

const HOUR = 3_600_000;

/** Posts a sign-in link the way the page's form does; never follows the redirect. */
async function postLink(h: Harness, token: string, headers: Record<string, string> = { origin: PUBLIC_ORIGIN }) {
  const res = await h.fetch(`/sign-in?token=${encodeURIComponent(token)}`, { method: 'POST', headers, redirect: 'manual' });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** An owner-only route's path with made-up IDs (the refusal comes before any lookup). */
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, 'x_1');

describeEverySetup('dashboard sign-in and sessions over HTTP', (setup) => {
  it('a sign-in link shows a page with a button (GET consumes nothing), and its POST sets a strict cookie and redirects to /dashboard/', async () => {
    const h = await createHarness(setup);
    const link = await h.engine.issueSignInLink(h.accountId);
    const page = await h.fetch(`/sign-in?token=${encodeURIComponent(link.token)}`);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('content-security-policy')).not.toContain('script-src');
    // The token is in the URL: a Referer carries the origin only (and the form's POST its real Origin).
    expect(page.headers.get('referrer-policy')).toBe('strict-origin');
    expect(html).toContain('<form method="post">');
    expect(html).toContain('<button type="submit">Sign in</button>');
    expect(html).not.toContain('<script');
    // A second GET (a mail scanner, then the person) still leaves the link usable.
    expect((await h.fetch(`/sign-in?token=${encodeURIComponent(link.token)}`)).status).toBe(200);

    const signedIn = await postLink(h, link.token);
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe(`${PUBLIC_BASE_URL}/dashboard/`);
    const cookie = signedIn.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^svc_session=svc_ses_[A-Za-z0-9_-]{43}; /);
    const attributes = cookie.split('; ').slice(1);
    expect(attributes).toEqual(expect.arrayContaining(['Path=/', 'HttpOnly', 'SameSite=Lax', 'Secure', `Max-Age=${SESSION_LIFETIMES.absoluteMs / 1000}`]));

    const who = await h.fetch('/v1/session', { headers: { cookie: cookie.split(';')[0]! } });
    expect(who.status).toBe(200);
    expect(await who.json()).toMatchObject({ kind: 'session', accountId: h.accountId, role: 'owner', email: link.email });
  });

  it('the form post (token in the body, no query) signs in too', async () => {
    const h = await createHarness(setup);
    const link = await h.engine.issueSignInLink(h.accountId);
    const res = await h.fetch('/sign-in', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: PUBLIC_ORIGIN, 'sec-fetch-site': 'same-origin' },
      body: new URLSearchParams({ token: link.token }).toString(),
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('set-cookie')).toMatch(/^svc_session=svc_ses_/);
  });

  it('no cookie on http: the Secure attribute follows the public URL', async () => {
    const h = await createHarness(setup, { publicBaseUrl: 'http://127.0.0.1:8787' });
    const link = await h.engine.issueSignInLink(h.accountId);
    const res = await postLink(h, link.token, {});
    expect(res.status).toBe(303);
    expect(res.headers.get('set-cookie')).not.toContain('Secure');
    expect(res.headers.get('location')).toBe('http://127.0.0.1:8787/dashboard/');
  });

  it('a used, expired or unknown link gets a clear page and no cookie', async () => {
    const h = await createHarness(setup);
    const link = await h.engine.issueSignInLink(h.accountId);
    expect((await postLink(h, link.token)).status).toBe(303);
    const reused = await postLink(h, link.token);
    expect(reused.status).toBe(410);
    expect(reused.text).toContain('already used');
    expect(reused.headers.get('set-cookie')).toBeNull();

    const late = await h.engine.issueSignInLink(h.accountId);
    h.clock.advance(SESSION_LIFETIMES.linkMs);
    const expired = await postLink(h, late.token);
    expect(expired.status).toBe(410);
    expect(expired.text).toContain('expired');
    expect(expired.headers.get('set-cookie')).toBeNull();

    for (const token of ['svc_lt_' + 'A'.repeat(43), 'garbage', '']) {
      const unknown = await postLink(h, token);
      expect(unknown.status, token).toBe(404);
      expect(unknown.text).toContain('not valid');
      expect(unknown.headers.get('set-cookie')).toBeNull();
    }
  });

  it('an operator link sealed under another master key, or altered, signs nobody in', async () => {
    const h = await createHarness(setup);
    const deps = { secrets: createSecretBox(new Uint8Array(randomBytes(32))), clock: h.clock, random: cryptoRandom };
    const foreign = sealOperatorSignInLink(deps, h.accountId);
    expect(foreign.token).toMatch(/^svc_op_v2\./);
    const refused = await postLink(h, foreign.token);
    expect([refused.status, refused.headers.get('set-cookie')]).toEqual([404, null]);
    const altered = foreign.token.slice(0, -2) + (foreign.token.endsWith('AA') ? 'BB' : 'AA');
    expect((await postLink(h, altered)).status).toBe(404);
  });

  it('parallel posts of one link sign in exactly once', async () => {
    const h = await createHarness(setup);
    const link = await h.engine.issueSignInLink(h.accountId);
    const answers = await Promise.all(Array.from({ length: 6 }, () => postLink(h, link.token)));
    expect(answers.map((a) => a.status).sort()).toEqual([303, 410, 410, 410, 410, 410]);
  });

  it('session fixation: a cookie set before sign-in is never promoted', async () => {
    const h = await createHarness(setup);
    const planted = `svc_ses_${'B'.repeat(43)}`;
    const link = await h.engine.issueSignInLink(h.accountId);
    const res = await postLink(h, link.token, { origin: PUBLIC_ORIGIN, cookie: `svc_session=${planted}` });
    expect(res.status).toBe(303);
    const issued = /^svc_session=([^;]+)/.exec(res.headers.get('set-cookie')!)![1];
    expect(issued).not.toBe(planted);
    expect((await h.fetch('/v1/session', { headers: { cookie: `svc_session=${planted}` } })).status).toBe(401);
    expect((await h.fetch('/v1/session', { headers: { cookie: `svc_session=${issued}` } })).status).toBe(200);
  });

  it('a cross-site post of a link is refused (login CSRF) and consumes nothing', async () => {
    const h = await createHarness(setup);
    const link = await h.engine.issueSignInLink(h.accountId);
    expect((await postLink(h, link.token, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await postLink(h, link.token, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await postLink(h, link.token)).status).toBe(303);
  });

  it('the session authenticates the vendor API; state changes need a same-origin request (CSRF), else 403 and nothing written', async () => {
    const h = await createHarness(setup);
    const owner = await h.signIn();
    const body = { name: 'Cookie Product', keyPrefix: 'CK', graceDays: 1, offlineDays: 7 };
    for (const origin of [null, 'https://evil.example', 'null']) {
      const refused = await h.api('POST', '/products', body, { session: owner, origin });
      expect(refused.status, String(origin)).toBe(403);
      expect(refused.body.error.code).toBe('forbidden');
    }
    const crossSite = await h.api('POST', '/products', body, { session: owner, origin: null, headers: { 'sec-fetch-site': 'cross-site' } });
    expect(crossSite.status).toBe(403);
    expect((await h.api('GET', '/products', undefined, { session: owner, origin: null })).body.data).toEqual([]);

    const viaFetchSite = await h.api('POST', '/products', body, { session: owner, origin: null, headers: { 'sec-fetch-site': 'same-origin' } });
    expect(viaFetchSite.status).toBe(201);
    const viaOrigin = await h.api('PATCH', `/products/${viaFetchSite.body.id}`, { name: 'Renamed' }, { session: owner });
    expect(viaOrigin.status).toBe(200);
    // The session may create API keys ("created in the dashboard").
    const key = await h.api('POST', '/api-keys', { name: 'from the dashboard' }, { session: owner });
    expect(key.status).toBe(201);
    expect((await h.api('GET', '/products', undefined, { key: key.body.key })).body.data).toHaveLength(1);
  });

  it("a session of account A sees none of account B's objects (404)", async () => {
    const h = await createHarness(setup);
    const b = await h.newAccount('unlimited');
    const productOfB = await createProduct(h, {}, b.apiKey);
    const ownerOfA = await h.signIn();
    expect((await h.api('GET', `/products/${productOfB.id}`, undefined, { session: ownerOfA })).status).toBe(404);
    expect((await h.api('PATCH', `/products/${productOfB.id}`, { name: 'x' }, { session: ownerOfA })).status).toBe(404);
    expect((await h.api('POST', `/products/${productOfB.id}/keys/export`, undefined, { session: ownerOfA })).status).toBe(404);
    expect((await h.api('GET', '/products', undefined, { session: ownerOfA })).body.data).toEqual([]);
    const ownerOfB = await h.signIn({ accountId: b.accountId });
    const sessionsOfB = await h.api('GET', '/sessions', undefined, { session: ownerOfB });
    const revoke = await h.api('DELETE', `/sessions/${sessionsOfB.body.data[0].id}`, undefined, { session: ownerOfA });
    expect(revoke.status).toBe(404);
    expect((await h.api('GET', '/session', undefined, { session: ownerOfB })).status).toBe(200);
  });

  it('every owner-only route: an API key gets 400 owner_session_required, a member 403 forbidden', async () => {
    const h = await createHarness(setup);
    const member = await h.signIn({ role: 'member' });
    expect(member.role).toBe('member');
    const ownerOnly = vendorRoutes.filter((r) => r.access === 'owner');
    expect(ownerOnly.map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining(['POST /v1/products/{id}/keys/export', 'GET /v1/sessions', 'DELETE /v1/sessions/{id}', 'POST /v1/members', 'DELETE /v1/members/{id}']),
    );
    for (const route of ownerOnly) {
      const path = concrete(route.path).replace(/^\/v1/, '');
      const withKey = await h.api(route.method, path);
      expect([route.path, withKey.status, withKey.body.error.code]).toEqual([route.path, 400, 'owner_session_required']);
      const asMember = await h.api(route.method, path, undefined, { session: member });
      expect([route.path, asMember.status, asMember.body.error.code]).toEqual([route.path, 403, 'forbidden']);
    }
    // What a member may do: the rest of the vendor API.
    expect((await h.api('POST', '/products', { name: 'By member', keyPrefix: 'BM' }, { session: member })).status).toBe(201);
    expect((await h.api('GET', '/members', undefined, { session: member })).body.data).toHaveLength(1);
  });

  it('sessions end after the idle lifetime without requests, and after the absolute lifetime whatever their use', async () => {
    const h = await createHarness(setup);
    const idle = await h.signIn();
    h.clock.advance(SESSION_LIFETIMES.idleMs - 120_000);
    expect((await h.api('GET', '/session', undefined, { session: idle })).status).toBe(200); // activity moves the idle deadline
    h.clock.advance(SESSION_LIFETIMES.idleMs - 120_000);
    expect((await h.api('GET', '/session', undefined, { session: idle })).status).toBe(200);
    h.clock.advance(SESSION_LIFETIMES.idleMs);
    expect((await h.api('GET', '/session', undefined, { session: idle })).status).toBe(401);

    const busy = await h.signIn();
    const end = h.clock.now() + SESSION_LIFETIMES.absoluteMs;
    while (h.clock.now() + 11 * HOUR < end) {
      expect((await h.api('GET', '/session', undefined, { session: busy })).status).toBe(200);
      h.clock.advance(11 * HOUR);
    }
    expect((await h.api('GET', '/session', undefined, { session: busy })).status).toBe(200);
    h.clock.advance(end - 1000 - h.clock.now());
    expect((await h.api('GET', '/session', undefined, { session: busy })).status).toBe(200);
    h.clock.advance(1000);
    expect((await h.api('GET', '/session', undefined, { session: busy })).status).toBe(401);
  });

  it('DELETE /v1/session signs out: the cookie is cleared and the token no longer works', async () => {
    const h = await createHarness(setup);
    const owner = await h.signIn();
    const out = await h.api('DELETE', '/session', undefined, { session: owner });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ signedOut: true });
    expect(out.headers.get('set-cookie')).toMatch(/^svc_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Lax; Secure$/);
    expect((await h.api('GET', '/session', undefined, { session: owner })).status).toBe(401);
    const withKey = await h.api('DELETE', '/session');
    expect([withKey.status, withKey.body.error.code]).toEqual([400, 'invalid_request']);
  });

  it('the owner lists and revokes sessions; removing a member ends theirs; tokens are never listed or logged', async () => {
    const h = await createHarness(setup);
    const owner = await h.signIn();
    const member = await h.signIn({ role: 'member' });
    const listed = await h.api('GET', '/sessions', undefined, { session: owner });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((s: { email: string; role: string; current: boolean }) => [s.email, s.role, s.current])).toEqual([
      [member.email, 'member', false],
      [owner.email, 'owner', true],
    ]);
    const everything = JSON.stringify([listed.body, h.logLines]);
    expect(everything).not.toContain(owner.token);
    expect(everything).not.toContain(member.token);
    expect(everything).not.toContain('svc_lt_');

    const revoked = await h.api('DELETE', `/sessions/${listed.body.data[0].id}`, undefined, { session: owner });
    expect(revoked.status).toBe(200);
    expect((await h.api('GET', '/session', undefined, { session: member })).status).toBe(401);

    const again = await h.signIn({ email: member.email });
    const members = await h.api('GET', '/members', undefined, { session: owner });
    const removed = await h.api('DELETE', `/members/${members.body.data[0].id}`, undefined, { session: owner });
    expect(removed.status).toBe(200);
    expect((await h.api('GET', '/session', undefined, { session: again })).status).toBe(401);
    await expect(h.engine.issueSignInLink(h.accountId, { email: member.email })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('closing the account revokes its sessions at once', async () => {
    const h = await createHarness(setup);
    const owner = await h.signIn();
    const member = await h.signIn({ role: 'member' });
    await h.engine.closeAccount(h.accountId);
    expect((await h.api('GET', '/session', undefined, { session: owner })).status).toBe(401);
    expect((await h.api('GET', '/session', undefined, { session: member })).status).toBe(401);
  });
});
