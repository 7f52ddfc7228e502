import { describe, expect, it } from 'vitest';
import { machineFingerprint } from '@svc-licensing/cert-format';
import { verifyCertificate, verifyRevocationList } from '@svc-licensing/verifier';
import { advanceAll, app, DAY_MS, startServer, type SdkServer } from '../support/sdk-server.js';

// The SDK's online half of RVL1 against the reference server itself (issue 29): activate and validate
// answer `revocationListSeq`, and GET /v1/products/{id}/revocations serves the list the server signed
// when the vendor revoked a license or freed a machine. Every call crosses a real socket.

/** The route's current list text, as a vendor's script or a CDN would fetch it. */
async function currentList(server: SdkServer, product: string): Promise<string> {
  const res = await fetch(`${server.baseUrl}/products/${product}/revocations`);
  expect(res.status).toBe(200);
  return (await res.text()).trim();
}

/** A second license of the product, for a revoke that does not touch the apps' license. */
async function otherLicense(server: SdkServer, planId: string): Promise<string> {
  const paidUntil = new Date(server.clock.now() + 30 * DAY_MS).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return (await server.api('POST', '/licenses', { plan: planId, email: 'other@example.com', paidUntil })).id;
}

describe('SDK: fetching the revocation list when the server announces a newer one', () => {
  it('validate announcing a newer seq makes one GET of the list; answers announcing the held seq make none', async () => {
    const server = await startServer();
    const licensed = await server.license();
    const laptop = app(server, licensed, 'machine-laptop');
    const desktop = app(server, licensed, 'machine-desktop');
    await laptop.client.activate(licensed.key);
    const { activation } = await desktop.client.activate(licensed.key);
    expect(server.listRequests()).toEqual([]); // seq 0 announced: nothing to fetch

    // The desktop is stolen and freed from the dashboard's API: the server lists it (seq 1).
    await server.api('DELETE', `/activations/${activation}`);
    advanceAll(server, [laptop, desktop], DAY_MS);
    expect(await laptop.client.check()).toMatchObject({ valid: true, offline: false });
    expect(laptop.stored()).toMatchObject({ revocationSeq: 1, revocationList: await currentList(server, licensed.product) });
    expect(server.listRequests().slice(0, 1)).toEqual([{ product: licensed.product, status: 200 }]);

    advanceAll(server, [laptop, desktop], DAY_MS);
    expect(await laptop.client.validate()).toMatchObject({ valid: true, offline: false });
    expect(server.listRequests()).toHaveLength(2); // the SDK's one GET and this test's own
    expect(server.clientCalls('validate')).toBe(2);

    // The stolen desktop, offline with its certificate: valid until a list naming it arrives (by hand here).
    await server.stop();
    expect(await desktop.client.check()).toMatchObject({ valid: true, offline: true });
    expect(await desktop.client.importRevocationList(laptop.stored().revocationList!)).toEqual({ accepted: true, reason: null });
    expect(await desktop.client.check()).toMatchObject({ valid: false, outcome: 'revoked' });
  });

  it('a failed fetch changes nothing and is tried again at the next answer; an older list is refused after a newer one', async () => {
    const server = await startServer();
    const licensed = await server.license();
    let failLists = false;
    const flaky: typeof fetch = (input, init) =>
      failLists && String(input).endsWith('/revocations') ? Promise.resolve(new Response('busy', { status: 503 })) : fetch(input, init);
    const laptop = app(server, licensed, 'machine-laptop', { fetch: flaky });
    await laptop.client.activate(licensed.key);

    await server.api('POST', `/licenses/${await otherLicense(server, licensed.planId)}/revoke`);
    failLists = true;
    expect(await laptop.client.validate()).toMatchObject({ valid: true, offline: false, refreshError: null });
    expect(laptop.stored()).toMatchObject({ revocationSeq: null, revocationList: null });

    failLists = false;
    expect(await laptop.client.validate()).toMatchObject({ valid: true });
    const list1 = await currentList(server, licensed.product);
    expect(laptop.stored()).toMatchObject({ revocationSeq: 1, revocationList: list1 });

    await server.api('POST', `/licenses/${await otherLicense(server, licensed.planId)}/revoke`);
    expect(await laptop.client.validate()).toMatchObject({ valid: true });
    expect(laptop.stored()).toMatchObject({ revocationSeq: 2 });
    expect(await laptop.client.importRevocationList(list1)).toEqual({ accepted: false, reason: 'older_seq' });
    const before = server.listRequests().length;
    await laptop.client.validate(); // announces 2, held: no GET
    expect(server.listRequests()).toHaveLength(before);
  });

  it('a new activation fetches the list the activate answer announces', async () => {
    const server = await startServer();
    const licensed = await server.license();
    await server.api('POST', `/licenses/${await otherLicense(server, licensed.planId)}/revoke`);
    const laptop = app(server, licensed, 'machine-laptop');
    expect(await laptop.client.activate(licensed.key)).toMatchObject({ valid: true });
    expect(laptop.stored()).toMatchObject({ revocationSeq: 1 });
    expect(server.listRequests()).toEqual([{ product: licensed.product, status: 200 }]);
  });

  it('a machine deactivated and activated again in the same second (a seat moved back, a retry) stays valid with the list it fetches; its old certificate reads revoked', async () => {
    const server = await startServer();
    const licensed = await server.license();
    const laptop = app(server, licensed, 'machine-laptop');
    expect(await laptop.client.activate(licensed.key)).toMatchObject({ valid: true });
    const old = laptop.stored().certificate!;
    await laptop.client.deactivate();
    // Neither clock moves: the freeing, the new activation and the checks share one whole second.
    expect(await laptop.client.activate(licensed.key)).toMatchObject({ valid: true });
    const list = await currentList(server, licensed.product);
    expect(laptop.stored()).toMatchObject({ revocationSeq: 1, revocationList: list });
    expect(laptop.stored().certificate).not.toBe(old);
    await server.stop();
    expect(await laptop.client.check()).toMatchObject({ valid: true, offline: true });

    // The certificate from before the freeing (a copy kept elsewhere) is refused by that list.
    const checked = await verifyRevocationList(list, { publicKeys: licensed.publicKeys, product: licensed.product });
    if (checked.outcome !== 'valid') throw new Error(`the served list is ${checked.outcome}`);
    const options = { publicKeys: licensed.publicKeys, product: licensed.product, fingerprint: machineFingerprint(licensed.product, 'machine-laptop'), appMajor: 1, now: Math.floor(server.clock.now() / 1000) };
    expect((await verifyCertificate(old, { ...options, revocations: checked.list })).outcome).toBe('revoked');
    expect((await verifyCertificate(laptop.stored().certificate!, { ...options, revocations: checked.list })).outcome).toBe('valid');
  });
});

describe('SDK: an air-gapped site, as the verifier README shows it', () => {
  it('curl fetches the list into a file, the file is carried over, and the offline app imports it: valid before, revoked after', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const { mkdtempSync, readFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const server = await startServer();
    const licensed = await server.license();
    const site = app(server, licensed, 'machine-air-gapped');
    await site.client.activate(licensed.key); // activated once (or by file), then never online again
    await server.api('POST', `/licenses/${licensed.licenseId}/revoke`);

    const file = join(mkdtempSync(join(tmpdir(), 'rvl1-usb-')), 'acme.rvl1');
    // Asynchronously: the server answers from this same process.
    await promisify(execFile)('curl', ['--fail', '--silent', '--max-time', '20', '-o', file, `${server.baseUrl}/products/${licensed.product}/revocations`]);
    await server.stop(); // the site has no network
    site.clock.advance(DAY_MS);
    expect(await site.client.check()).toMatchObject({ valid: true, offline: true });
    expect(await site.client.importRevocationList(readFileSync(file, 'utf8'))).toEqual({ accepted: true, reason: null });
    expect(await site.client.check()).toMatchObject({ valid: false, outcome: 'revoked', offline: true });
  });
});
