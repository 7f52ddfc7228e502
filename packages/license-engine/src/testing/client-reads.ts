import { decodeCertificate } from '@svc-licensing/cert-format';
import { hashLicenseKey } from '@svc-licensing/cert-format';
import { expect, it } from 'vitest';
import { LAST_SEEN_RESOLUTION_MS } from '../client/client.js';
import { LicensingError } from '../_internal/errors.js';
import type { ClientLicenseQuery, ClientLicenseRecords, Store, StoreTx } from '../_internal/store.js';
import { NOW, fingerprint, setup } from './engine-cases.js';

const codeOf = (error: unknown) => (LicensingError.is(error) ? error.code : String(error));

/** What `readClientLicense` must return: the records the separate reads find. */
async function separateReads(tx: StoreTx, q: ClientLicenseQuery): Promise<ClientLicenseRecords> {
  const license = await tx.findOne('licenses', { keyHash: q.keyHash });
  return {
    product: await tx.get('products', q.productId),
    license,
    plan: license ? await tx.get('plans', license.planId) : null,
    account: license ? await tx.get('accounts', license.accountId) : null,
    activation: license ? await tx.findOne('activations', { licenseId: license.id, fingerprint: q.fingerprint }) : null,
    signingKey: await tx.findOne('signingKeys', { productId: q.productId, status: 'active' }),
  };
}

/** Read-only units and the one-read client lookup that `validate` runs on. */
export function clientReadCases(store: () => Store): void {
  it('a read-only unit returns what its work returns, sees committed records and rethrows its error', async () => {
    const { account } = await setup(store());
    const read = await store().transaction((tx) => tx.get('accounts', account.id), { readOnly: true });
    expect(read?.name).toBe('Conformance');
    const boom = new Error('boom');
    await expect(store().transaction(async () => Promise.reject(boom), { readOnly: true })).rejects.toBe(boom);
    expect(await store().transaction((tx) => tx.count('products', { accountId: account.id }), { readOnly: true })).toBe(1);
  });

  it('readClientLicense, where the store has it, returns exactly what the separate reads find', async () => {
    const { engine, account, product, plan } = await setup(store());
    const { license } = await engine.createLicense(account.id, { plan: plan.id, email: 'a@conformance.test', paidUntil: '2030-12-31T00:00:00Z' });
    await engine.activate({ product: product.id, key: license.key, fingerprint: fingerprint(1) });
    const other = await engine.createProduct(account.id, { name: 'Other', keyPrefix: 'OTH-' });
    const rotated = await engine.createSigningKey(account.id, product.id);
    await engine.activateSigningKey(account.id, product.id, rotated.kid);
    const keyHash = hashLicenseKey(license.key);
    const queries: ClientLicenseQuery[] = [
      { productId: product.id, keyHash, fingerprint: fingerprint(1) }, // activated
      { productId: product.id, keyHash, fingerprint: fingerprint(2) }, // not activated
      { productId: other.id, keyHash, fingerprint: fingerprint(1) }, // the key of another product
      { productId: 'prd_missing', keyHash, fingerprint: fingerprint(1) },
      { productId: product.id, keyHash: hashLicenseKey('APP-AAAA-BBBB-CCCC-DDDD'), fingerprint: fingerprint(1) },
    ];
    const compared = await store().transaction(async (tx) => {
      let n = 0;
      for (const q of queries) {
        const expected = await separateReads(tx, q);
        if (!tx.readClientLicense) continue;
        expect(await tx.readClientLicense(q)).toEqual(expected);
        n++;
      }
      return n;
    }, { readOnly: true });
    expect(compared === 0 || compared === queries.length).toBe(true);
    // The locked variant, in a unit that writes, returns the same records.
    await store().transaction(async (tx) => {
      for (const q of queries) {
        const expected = await separateReads(tx, q);
        if (tx.readClientLicenseLocked) expect(await tx.readClientLicenseLocked(q)).toEqual(expected);
      }
    });
    // Through the engine, on whichever path the store offers: the rotated key signs, refusals keep their codes.
    const { certificate } = await engine.validate({ product: product.id, key: license.key, fingerprint: fingerprint(1) });
    const decoded = decodeCertificate(certificate);
    expect(decoded.ok && decoded.payload.kid).toBe(rotated.kid);
    const refusals = await Promise.all(
      queries.slice(1, 4).map((q) => engine.validate({ product: q.productId, key: license.key, fingerprint: q.fingerprint }).catch(codeOf)),
    );
    expect(refusals).toEqual(['not_activated', 'unknown_key', 'unknown_product']);
    await engine.suspendLicense(account.id, license.id);
    expect(await engine.validate({ product: product.id, key: license.key, fingerprint: fingerprint(1) }).catch(codeOf)).toBe('license_suspended');
  });

  it('validate records lastSeenAt once it is older than the resolution, and a new app version at once', async () => {
    let now = NOW;
    const { engine, account, product, plan } = await setup(store(), { now: () => now });
    const { license } = await engine.createLicense(account.id, { plan: plan.id, email: 'a@conformance.test', paidUntil: '2030-12-31T00:00:00Z' });
    const call = { product: product.id, key: license.key, fingerprint: fingerprint(1) };
    await engine.activate(call);
    const seen = async () => (await engine.getLicense(account.id, license.id)).activations[0]!;
    now += 1_000;
    await engine.validate(call);
    expect((await seen()).lastSeenAt).toBe(new Date(NOW).toISOString().replace('.000Z', 'Z'));
    await engine.validate({ ...call, appVersion: '2.0.0' });
    expect((await seen()).appVersion).toBe('2.0.0');
    now += LAST_SEEN_RESOLUTION_MS + 1_000;
    await engine.validate({ ...call, appVersion: '2.0.0' });
    expect(Date.parse((await seen()).lastSeenAt)).toBe(Math.floor(now / 1000) * 1000);
  });
}
