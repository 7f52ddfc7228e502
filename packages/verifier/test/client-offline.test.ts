import { createServer } from 'node:net';
import { base64urlEncode, machineFingerprint } from '@svc-licensing/cert-format';
import { createCertificateSigner, publicKeyFromSeed } from '@svc-licensing/cert-format/sign';
import { beforeAll, describe, expect, it } from 'vitest';
import { basePayload, DAY, T0, TEST_MACHINE_ID, TEST_PRODUCT, TEST_SEED_K1 } from '../../../test-vectors/fixtures.js';
import { createLicenseClient } from '../src/client.js';
import { LicenseClientError } from '../src/client-errors.js';
import type { LicenseClientOptions } from '../src/client-options.js';
import { decodeLicenseState, emptyLicenseState, encodeLicenseState, type LicenseState } from '../src/storage.js';
import { createMemoryStorage } from '../src/storage-memory.js';

// Behaviour that needs no server: the server address is a port nobody listens on, so any call the
// client makes is a real connection refusal (a network error), never an answer.
let deadBaseUrl = '';
beforeAll(async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  deadBaseUrl = `http://127.0.0.1:${port}/v1`;
});

const signer = createCertificateSigner(TEST_SEED_K1);
const publicKeys = { k1: base64urlEncode(publicKeyFromSeed(TEST_SEED_K1)) };
const certificate = signer.sign(basePayload());

function setup(state: Partial<LicenseState> | null, at: number, extra: Partial<LicenseClientOptions> = {}) {
  const storage = createMemoryStorage(state === null ? null : encodeLicenseState({ ...emptyLicenseState(TEST_PRODUCT), ...state }));
  let nowSeconds = at;
  const client = createLicenseClient({
    baseUrl: deadBaseUrl,
    product: TEST_PRODUCT,
    publicKeys,
    appVersion: '1.2.0',
    storage,
    machineId: TEST_MACHINE_ID,
    now: () => nowSeconds * 1000,
    timeoutMs: 5000,
    ...extra,
  });
  return { client, storage, setNow: (seconds: number) => (nowSeconds = seconds), stored: () => decodeLicenseState(storage.text, TEST_PRODUCT) };
}

const activated = { key: 'TEST-AAAAA-BBBBB-CCCCC-DDDDD', certificate, highestIssuedAt: T0 };

describe('check() without a server', () => {
  it('reports no_certificate on a machine that never activated, without calling the server', async () => {
    const { client } = setup(null, T0);
    expect(await client.check()).toEqual({ valid: false, outcome: null, payload: null, offline: false, reason: 'no_certificate', refreshError: null, lease: null });
  });

  it('answers from the cached certificate before refreshAfter, without calling the server', async () => {
    const { client } = setup(activated, T0 + DAY - 1);
    const result = await client.check();
    expect(result).toMatchObject({ valid: true, outcome: 'valid', offline: true, reason: null, refreshError: null });
    expect(result.payload).toEqual(basePayload());
  });

  it('once refreshAfter has passed, tries the server and keeps the cached certificate on a network error', async () => {
    const { client, stored } = setup(activated, T0 + DAY);
    expect(await client.check()).toMatchObject({ valid: true, offline: true, refreshError: 'network_error' });
    expect(stored()).toEqual({ ...emptyLicenseState(TEST_PRODUCT), ...activated });
  });

  it('reports expired once the cached certificate passes expiresAt while the server stays unreachable', async () => {
    const { client, setNow } = setup(activated, T0 + 7 * DAY - 1);
    expect(await client.check()).toMatchObject({ valid: true, offline: true });
    setNow(T0 + 7 * DAY);
    expect(await client.check()).toMatchObject({ valid: false, outcome: 'expired', reason: 'expired', offline: true, refreshError: 'network_error' });
  });

  it('reports clock_tampered when the clock is more than a day behind the highest issuedAt ever seen', async () => {
    const { client } = setup({ ...activated, highestIssuedAt: T0 + 3 * DAY }, T0 + 2 * DAY - 1);
    expect(await client.check()).toMatchObject({ valid: false, outcome: 'clock_tampered', reason: 'clock_tampered', refreshError: null });
  });

  it('reports version_not_covered for an app major above the certificate maxMajor', async () => {
    const capped = signer.sign(basePayload({ maxMajor: 1, status: 'perpetual', paidUntil: null, validUntil: null }));
    const { client } = setup({ ...activated, certificate: capped }, T0 + 60, { appVersion: 'v2.0.0' });
    expect(await client.check()).toMatchObject({ valid: false, outcome: 'version_not_covered' });
  });

  it('reports the refusal that cleared the certificate on later checks too', async () => {
    const { client } = setup({ key: activated.key, highestIssuedAt: T0, refusal: 'license_revoked' }, T0);
    expect(await client.check()).toMatchObject({ valid: false, outcome: null, reason: 'license_revoked', offline: false });
  });
});

describe('activate, validate and deactivate without a server', () => {
  it('activate fails with network_error and stores nothing', async () => {
    const { client, storage } = setup(null, T0);
    const error = await client.activate(activated.key).catch((e: unknown) => e);
    expect(LicenseClientError.is(error) && error.code).toBe('network_error');
    expect(storage.text).toBeNull();
  });

  it('deactivate keeps the stored certificate and key on a network error so the call can be retried', async () => {
    const { client, stored } = setup(activated, T0);
    await expect(client.deactivate()).rejects.toMatchObject({ code: 'network_error', status: null });
    expect(stored()).toMatchObject(activated);
  });

  it('validate and deactivate need a stored license key', async () => {
    const { client } = setup(null, T0);
    await expect(client.validate()).rejects.toMatchObject({ code: 'no_license_key' });
    await expect(client.deactivate()).rejects.toMatchObject({ code: 'no_license_key' });
  });

  it('storage failures surface as storage_error with the cause', async () => {
    const cause = new Error('disk full');
    const client = createLicenseClient({
      baseUrl: deadBaseUrl,
      product: TEST_PRODUCT,
      publicKeys,
      appVersion: '1.0.0',
      machineId: TEST_MACHINE_ID,
      storage: { read: () => Promise.reject(cause), write: () => undefined },
    });
    await expect(client.check()).rejects.toMatchObject({ code: 'storage_error', cause });
  });
});

describe('createLicenseClient options', () => {
  const base: LicenseClientOptions = {
    baseUrl: 'https://licensing.example.com/v1/',
    product: TEST_PRODUCT,
    publicKeys,
    appVersion: '3.1.4',
    storage: createMemoryStorage(),
    machineId: TEST_MACHINE_ID,
  };

  it('computes the spec fingerprint from a raw machine ID, or takes a ready one', () => {
    expect(createLicenseClient(base).fingerprint).toBe(machineFingerprint(TEST_PRODUCT, TEST_MACHINE_ID));
    const { machineId: _, ...withoutMachineId } = base;
    const fingerprint = 'a'.repeat(64);
    expect(createLicenseClient({ ...withoutMachineId, fingerprint }).fingerprint).toBe(fingerprint);
  });

  it('refuses bad options with invalid_argument', () => {
    const { machineId: _, ...withoutMachineId } = base;
    const bad: Partial<LicenseClientOptions>[] = [
      { baseUrl: 'licensing.example.com' },
      { product: '' },
      { publicKeys: {} },
      { publicKeys: { k1: 'too-short' } },
      { appVersion: 'latest' },
      { appVersion: '' },
      { fingerprint: 'a'.repeat(64) },
      { timeoutMs: 0 },
    ];
    for (const patch of bad) {
      expect(() => createLicenseClient({ ...base, ...patch } as LicenseClientOptions), JSON.stringify(patch)).toThrow(
        expect.objectContaining({ code: 'invalid_argument' }),
      );
    }
    expect(() => createLicenseClient(withoutMachineId as LicenseClientOptions)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    expect(() => createLicenseClient({ ...withoutMachineId, fingerprint: 'A'.repeat(64) })).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });
});
