import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createIdGenerator, createLicenseEngine, createSecretBox, cryptoRandom, type LicenseEngine } from '@svc-licensing/license-engine';
import { openTestStore, STORE_KINDS, type StoreKind } from '../support/stores.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of cleanups.splice(0).reverse()) await close();
});

async function engineOn(kind: StoreKind): Promise<LicenseEngine> {
  const opened = await openTestStore(kind);
  cleanups.push(opened.close);
  return createLicenseEngine({
    store: opened.store(),
    random: cryptoRandom,
    ids: createIdGenerator({ clock: { now: () => Date.now() }, random: cryptoRandom }),
    secrets: createSecretBox(new Uint8Array(randomBytes(32))),
  });
}

async function accountWithLicenses(engine: LicenseEngine, n: number) {
  const { account } = await engine.createAccount({ name: 'Acme', ownerEmail: `o${Math.random()}@acme.test`, servicePlan: 'unlimited' });
  const product = await engine.createProduct(account.id, { name: 'Editor', keyPrefix: 'ED' });
  const plan = await engine.createPlan(account.id, product.id, { code: 'life', kind: 'perpetual' });
  const licenses = [];
  for (let i = 0; i < n; i++) licenses.push((await engine.createLicense(account.id, { plan: plan.id, email: `c${i}@example.test` })).license);
  return { accountId: account.id, plan, keys: licenses.map((l) => l.key), licenses };
}

const collect = async (chunks: AsyncIterable<string>) => {
  let text = '';
  for await (const chunk of chunks) text += chunk;
  return text;
};

describe.each(STORE_KINDS)('account export on the %s store', (kind) => {
  it('reads page by page; records created after the export began are left out, and the document stays whole', async () => {
    const engine = await engineOn(kind);
    const a = await accountWithLicenses(engine, 5);
    const other = await accountWithLicenses(engine, 2);
    const exported = await engine.exportAccount(a.accountId, { pageSize: 2 });
    const iterator = exported.chunks[Symbol.asyncIterator]();
    let text = '';
    // Read until the licenses section has started, then create more records of every kind.
    while (!text.includes('"licenses":[')) text += (await iterator.next()).value ?? '';
    await engine.createLicense(a.accountId, { plan: a.plan.id, email: 'late@example.test' });
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) text += next.value;
    const doc = JSON.parse(text);
    expect(doc.exportId).toBe(exported.exportId);
    expect(doc.licenses.map((l: { key: string }) => l.key)).toEqual(a.keys); // oldest first, all five, no later one
    expect(doc.customers.map((c: { email: string }) => c.email)).toEqual([0, 1, 2, 3, 4].map((i) => `c${i}@example.test`));
    expect(text).not.toContain('late@example.test');
    for (const key of other.keys) expect(text).not.toContain(key);
    for (const section of ['products', 'plans', 'customers', 'licenses', 'auditEvents']) {
      for (const record of doc[section]) expect(record.accountId, section).toBe(a.accountId);
    }
    // Every license of the account is there: 5 before, 6 now, the document keeps the 5.
    expect((await engine.listLicenses(a.accountId)).data).toHaveLength(6);
  });

  it('carries the revocation-list entries of the account\'s licenses, every page of them, without those of licenses created after the export began', async () => {
    const engine = await engineOn(kind);
    const a = await accountWithLicenses(engine, 5);
    const other = await accountWithLicenses(engine, 1);
    const revoked = a.licenses.slice(0, 3).map((l) => l.id);
    for (const id of revoked) await engine.revokeLicense(a.accountId, id);
    const fp = 'ab'.repeat(32);
    const machine = a.licenses[3]!;
    const { activation } = await engine.activate({ product: machine.product, key: machine.key, fingerprint: fp });
    await engine.deleteActivation(a.accountId, activation);
    await engine.revokeLicense(other.accountId, other.licenses[0]!.id);

    const exported = await engine.exportAccount(a.accountId, { pageSize: 2 });
    const iterator = exported.chunks[Symbol.asyncIterator]();
    let text = '';
    while (!text.includes('"licenses":[')) text += (await iterator.next()).value ?? '';
    const { license: late } = await engine.createLicense(a.accountId, { plan: a.plan.id, email: 'late@example.test' });
    await engine.revokeLicense(a.accountId, late.id);
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) text += next.value;
    const doc = JSON.parse(text);
    const entries = doc.revocationEntries as { licenseId: string; fingerprint: string | null; freedAt: number | null; accountId: string; until: number }[];
    const subjects = entries.map((e) => `${e.licenseId}:${e.fingerprint ?? 'license'}`).sort();
    expect(subjects).toEqual([...revoked.map((id) => `${id}:license`), `${machine.id}:${fp}`].sort());
    for (const e of entries) expect([e.accountId, e.until > 0]).toEqual([a.accountId, true]);
    expect(entries.find((e) => e.fingerprint === fp)?.freedAt).toEqual(expect.any(Number));
    expect(Object.keys(doc).indexOf('revocationEntries')).toBe(Object.keys(doc).indexOf('activations') + 1);
  });

  it('is audited as account.exported, one event per export, and an unknown account is not_found with nothing written', async () => {
    const engine = await engineOn(kind);
    const a = await accountWithLicenses(engine, 1);
    const first = await engine.exportAccount(a.accountId);
    const second = await engine.exportAccount(a.accountId);
    const events = (await engine.listEvents(a.accountId)).data.filter((e) => e.type === 'account.exported');
    expect(events.map((e) => e.id)).toEqual([second.exportId, first.exportId]);
    expect(events[0]!.data).toEqual({ format: 'svc-account-export-v1', exportId: second.exportId });
    // The second export holds the first one's event, and its own.
    const doc = JSON.parse(await collect(second.chunks));
    expect(doc.auditEvents.filter((e: { type: string }) => e.type === 'account.exported').map((e: { id: string }) => e.id)).toEqual([first.exportId, second.exportId]);
    await expect(engine.exportAccount('acc_missing')).rejects.toMatchObject({ code: 'not_found' });
  });
});
