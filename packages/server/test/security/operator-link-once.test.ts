import { randomBytes } from 'node:crypto';
import { createSecretBox, cryptoRandom, sealOperatorSignInLink } from '@svc-licensing/license-engine';
import { expect, it } from 'vitest';
import { parseMasterKey } from '../../src/master-key.js';
import { createHarness, describeEverySetup, PUBLIC_ORIGIN, type Harness } from '../support/harness.js';

/**
 * Issue 25, item 3: an operator sign-in link (`svc owner sign-in-link`) worked more than once. The
 * used-link check hashed the token's text, and the decoder read other spellings of the same bytes
 * (`T` or `T=` appended, a `!` inside): 303, 410, 303, 303. Now the secret box decodes strictly and
 * a use is recorded under the claim's nonce, so a link is one link however it is written.
 */

/** A claim nonce as the CLI makes one (16 random bytes, base64url); the suites of a file share one database. */
const randomNonce = () => randomBytes(16).toString('base64url');

async function postSignIn(h: Harness, token: string): Promise<{ status: number; cookie: string | null }> {
  const res = await h.fetch(`/sign-in?token=${encodeURIComponent(token)}`, { method: 'POST', headers: { origin: PUBLIC_ORIGIN }, redirect: 'manual' });
  await res.text();
  return { status: res.status, cookie: res.headers.get('set-cookie') };
}

describeEverySetup('an operator sign-in link works once', (setup) => {
  it('other spellings of the same token sign nobody in: T appended, T= appended, a ! inside', async () => {
    const h = await createHarness(setup);
    const { token } = sealOperatorSignInLink({ secrets: createSecretBox(h.masterKey), clock: h.clock, random: cryptoRandom }, h.accountId);
    const middle = Math.floor(token.length / 2);
    const spellings = [`${token}T`, `${token}T=`, `${token.slice(0, middle)}!${token.slice(middle)}`];
    // Before the real token is used, and after: no spelling but the issued one signs in.
    for (const other of spellings) expect((await postSignIn(h, other)).status).toBe(404);
    const first = await postSignIn(h, token);
    expect(first.status).toBe(303);
    expect(first.cookie).toMatch(/^svc_session=svc_ses_/);
    expect((await postSignIn(h, token)).status).toBe(410);
    for (const other of spellings) {
      const again = await postSignIn(h, other);
      expect(again.status).not.toBe(303);
      expect(again.cookie).toBeNull();
    }
  });

  it('the same claim sealed again (another ciphertext, the same nonce) is the same, used link (410)', async () => {
    const h = await createHarness(setup);
    const secrets = createSecretBox(h.masterKey);
    const claim = new TextEncoder().encode(JSON.stringify({ a: h.accountId, x: h.clock.now() + 15 * 60_000, n: randomNonce() }));
    const seal = () => `svc_op_${secrets.encrypt(claim, { purpose: 'operator-link', record: '' })}`;
    const [one, two] = [seal(), seal()];
    expect(one).not.toBe(two);
    expect((await postSignIn(h, one)).status).toBe(303);
    const reused = await postSignIn(h, two);
    expect(reused.status).toBe(410);
    expect(reused.cookie).toBeNull();
  });

  it('parallel posts of one operator link and its re-sealed twin sign in exactly once', async () => {
    const h = await createHarness(setup);
    const secrets = createSecretBox(h.masterKey);
    const claim = new TextEncoder().encode(JSON.stringify({ a: h.accountId, x: h.clock.now() + 15 * 60_000, n: randomNonce() }));
    const tokens = Array.from({ length: 6 }, () => `svc_op_${secrets.encrypt(claim, { purpose: 'operator-link', record: '' })}`);
    const answers = await Promise.all(tokens.map((token) => postSignIn(h, token)));
    expect(answers.map((a) => a.status).sort()).toEqual([303, 410, 410, 410, 410, 410]);
  });
});

it('the master key is read in its canonical spellings only (padded or unpadded base64, base64url)', () => {
  const bytes = Buffer.alloc(32, 0xfb);
  const padded = bytes.toString('base64');
  for (const text of [padded, padded.replace(/=+$/, ''), bytes.toString('base64url'), ` ${padded}\n`]) {
    expect(Buffer.from(parseMasterKey(text, 'SVC_MASTER_KEY')).equals(bytes)).toBe(true);
  }
  // The same bytes with set unused bits in the last character, or an extra character, are refused.
  const last = padded.at(-2)!;
  const unusedBitsSet = `${padded.slice(0, -2)}${String.fromCharCode(last.charCodeAt(0) + 1)}=`;
  expect(Buffer.from(unusedBitsSet, 'base64').equals(bytes)).toBe(true);
  for (const text of [unusedBitsSet, `${padded}T`, `${padded.slice(0, -1)}T=`]) {
    expect(() => parseMasterKey(text, 'SVC_MASTER_KEY')).toThrow(/SVC_MASTER_KEY/);
  }
});
