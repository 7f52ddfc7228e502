import { generateSigningKeyPair, signRevocationList } from '@svc-licensing/cert-format/sign';
import type { RevocationListInput } from '@svc-licensing/cert-format';
import { describe, expect, it } from 'vitest';
import { createLicenseClient } from '@svc-licensing/verifier';
import { advanceAll, app, DAY_MS, startServer, type App, type Licensed, type SdkServer } from '../support/sdk-server.js';

// RVL1 lists carried by hand to offline machines, against the real reference server. The lists are
// signed here with the product's own key (exported through the engine), exactly as the server half
// of issue 29 will sign them; until that half lands, this file stands in for its signing step.

const DAY = 86_400;
const seconds = (ms: number) => Math.floor(ms / 1000);

async function listFor(server: SdkServer, licensed: Licensed, over: Partial<RevocationListInput>, kid = 'k1'): Promise<string> {
  const input: RevocationListInput = { kid, product: licensed.product, seq: 1, issuedAt: seconds(server.clock.now()), licenses: [], activations: [], ...over };
  return signRevocationList(input, await server.signingSeed(licensed.product, kid));
}

/** The same app restarted: a new client over the same storage (nothing kept in memory). */
const restarted = (server: SdkServer, licensed: Licensed, a: App) =>
  createLicenseClient({ baseUrl: server.baseUrl, product: licensed.product, publicKeys: licensed.publicKeys, appVersion: '1.4.0', storage: a.storage, machineId: 'machine-laptop', now: a.clock.now });

describe('SDK: RVL1 revocation lists carried to offline machines (reference server)', () => {
  it('a revoked license\'s machine, offline with a fresh certificate, is valid before importing the list and revoked after', async () => {
    const server = await startServer();
    const licensed = await server.license();
    const laptop = app(server, licensed, 'machine-laptop');
    const { payload } = await laptop.client.activate(licensed.key);
    await server.api('POST', `/licenses/${licensed.licenseId}/revoke`);
    const list = await listFor(server, licensed, { licenses: [{ license: licensed.licenseId, until: payload!.expiresAt }] });
    await server.stop(); // the machine is offline from here on

    advanceAll(server, [laptop], DAY_MS / 4);
    expect(await laptop.client.check()).toMatchObject({ valid: true, outcome: 'valid', offline: true });
    expect(await laptop.client.importRevocationList(`${list}\n`)).toEqual({ accepted: true, reason: null });
    expect(laptop.stored()).toMatchObject({ revocationList: list, revocationSeq: 1, certificate: expect.stringMatching(/^CRT1\./) });

    expect(await laptop.client.check()).toEqual({
      valid: false,
      outcome: 'revoked',
      payload: expect.objectContaining({ license: licensed.licenseId }),
      offline: true,
      reason: 'revoked',
      refreshError: null,
      lease: null,
    });
    // The certificate is dropped; the key stays (the refusal retry may ask the server later).
    expect(laptop.stored()).toMatchObject({ key: licensed.key, certificate: null, refusal: 'revoked', revocationSeq: 1 });
    const again = await restarted(server, licensed, laptop).check();
    expect(again).toMatchObject({ valid: false, outcome: null, reason: 'revoked' });
  });

  it('a machine freed from the dashboard is revoked by the list; another machine of the license and a later re-activation are not', async () => {
    const server = await startServer();
    const licensed = await server.license();
    const laptop = app(server, licensed, 'machine-laptop');
    const desktop = app(server, licensed, 'machine-desktop');
    const { activation, payload } = await laptop.client.activate(licensed.key);
    await desktop.client.activate(licensed.key);
    advanceAll(server, [laptop, desktop], 60_000);
    await server.api('DELETE', `/activations/${activation}`); // freed: the laptop was stolen
    const freedAt = seconds(server.clock.now());
    const list = await listFor(server, licensed, {
      activations: [{ license: licensed.licenseId, fingerprint: laptop.client.fingerprint, freedAt, until: payload!.expiresAt }],
    });

    for (const machine of [laptop, desktop]) expect(await machine.client.importRevocationList(list)).toEqual({ accepted: true, reason: null });
    expect(await laptop.client.check()).toMatchObject({ valid: false, outcome: 'revoked', offline: true });
    expect(await desktop.client.check()).toMatchObject({ valid: true, outcome: 'valid', offline: true });

    // The laptop comes back to its owner and is activated again: a certificate issued after the
    // freeing is valid with the same list still held.
    advanceAll(server, [laptop, desktop], 1000);
    const reactivated = await laptop.client.activate(licensed.key);
    expect(reactivated).toMatchObject({ valid: true, outcome: 'valid' });
    expect(reactivated.payload!.issuedAt).toBeGreaterThan(freedAt);
    expect(laptop.stored()).toMatchObject({ revocationSeq: 1, certificate: expect.stringMatching(/^CRT1\./) });
  });

  it('refuses an older list after a newer one (rollback), also after a restart; the same seq again is unchanged', async () => {
    const server = await startServer();
    const licensed = await server.license();
    const laptop = app(server, licensed, 'machine-laptop');
    const { payload } = await laptop.client.activate(licensed.key);
    const empty2 = await listFor(server, licensed, { seq: 2 });
    // seq 1 names the license (say it was refunded, then reinstated: seq 2 no longer names it).
    const naming1 = await listFor(server, licensed, { seq: 1, licenses: [{ license: licensed.licenseId, until: payload!.expiresAt }] });

    expect(await laptop.client.importRevocationList(empty2)).toEqual({ accepted: true, reason: null });
    expect(await laptop.client.importRevocationList(naming1)).toEqual({ accepted: false, reason: 'older_seq' });
    expect(await restarted(server, licensed, laptop).importRevocationList(naming1)).toEqual({ accepted: false, reason: 'older_seq' });
    expect(await laptop.client.importRevocationList(empty2)).toEqual({ accepted: true, reason: 'unchanged' });
    expect(laptop.stored()).toMatchObject({ revocationList: empty2, revocationSeq: 2 });
    expect(await laptop.client.check()).toMatchObject({ valid: true, outcome: 'valid' });
  });

  it('refuses lists signed by a pending key the app does not trust, by an unknown key, of another product, or not lists at all', async () => {
    const server = await startServer();
    const licensed = await server.license();
    const laptop = app(server, licensed, 'machine-laptop'); // embeds k1, the keys published when the app was built
    await laptop.client.activate(licensed.key);
    const pending = await server.api('POST', `/products/${licensed.product}/keys`);
    expect(pending).toMatchObject({ kid: 'k2', status: 'pending' });

    const byPending = await listFor(server, licensed, {}, 'k2');
    const unknown = signRevocationList({ kid: 'k9', product: licensed.product, seq: 1, issuedAt: 1_800_000_000, licenses: [], activations: [] }, generateSigningKeyPair().seed);
    const otherProduct = await listFor(server, licensed, { product: 'prd_anotherproduct' }); // signed by this product's k1
    const answers = [];
    for (const text of [byPending, unknown, otherProduct, 'RVL1.x.y', '', 42 as unknown as string]) answers.push(await laptop.client.importRevocationList(text));
    expect(answers).toEqual([
      { accepted: false, reason: 'invalid_signature' },
      { accepted: false, reason: 'invalid_signature' },
      { accepted: false, reason: 'wrong_product' },
      { accepted: false, reason: 'malformed' },
      { accepted: false, reason: 'malformed' },
      { accepted: false, reason: 'malformed' },
    ]);
    expect(laptop.stored()).toMatchObject({ revocationList: null, revocationSeq: null });

    // Once k2 is activated and the app is updated to embed it, lists signed by k2 are accepted.
    await server.api('POST', `/products/${licensed.product}/keys/k2/activate`);
    const keys: { data: { kid: string; publicKey: string }[] } = await server.api('GET', `/products/${licensed.product}/keys`);
    const updated = app(server, { ...licensed, publicKeys: Object.fromEntries(keys.data.map((k) => [k.kid, k.publicKey])) }, 'machine-laptop');
    expect(await updated.client.importRevocationList(await listFor(server, licensed, { seq: 2 }, 'k2'))).toEqual({ accepted: true, reason: null });
  });

  it('an entry drops out at its documented instant: certificates of a listed license are refused until then and accepted from then on', async () => {
    const server = await startServer();
    const licensed = await server.license();
    const lab = app(server, licensed, 'machine-lab');
    // The entry a refund writes, kept by a machine that never got the list after the reinstatement.
    const until = seconds(server.clock.now()) + 3 * DAY + 5;
    const documentedInstant = Math.ceil(until / DAY) * DAY; // rounded up to a whole UTC day (docs/rvl1.md)
    expect(await lab.client.importRevocationList(await listFor(server, licensed, { licenses: [{ license: licensed.licenseId, until }] }))).toEqual({ accepted: true, reason: null });

    const certificateAt = async (ms: number) => {
      advanceAll(server, [lab], ms - server.clock.now());
      const request = lab.client.createActivationRequest({ key: licensed.key });
      return (await server.api('POST', '/activations/offline', { request })).certificate as string;
    };
    const before = await certificateAt(documentedInstant * 1000 - 1000);
    await expect(lab.client.importCertificate(before)).rejects.toMatchObject({ code: 'invalid_certificate', outcome: 'revoked' });
    const after = await certificateAt(documentedInstant * 1000);
    expect(await lab.client.importCertificate(after)).toMatchObject({ valid: true, outcome: 'valid' });
  });
});
