import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeCertificate } from '@svc-licensing/cert-format';
import { createIdGenerator, createLicenseEngine, createSecretBox, cryptoRandom, type LicenseEngine, type PurchaseCompletedCommand } from '@svc-licensing/license-engine';
import { verifyCertificate, verifyRevocationList } from '@svc-licensing/verifier';
import { createMySqlStore, migrate } from '../../src/stores/mysql/index.js';
import { cleanEnv, runCli } from '../support/cli-process.js';
import { createHarness, type Harness, type SignedIn } from '../support/harness.js';
import { fingerprint } from '../support/fixtures.js';
import { createTestDatabase, type TestDatabase } from '../support/mysql-database.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of cleanups.splice(0).reverse()) await close();
});

interface Machine {
  product: string;
  key: string;
  fingerprint: string;
  licenseId: string;
}

/** An account on the embedded store with two products (one rotated, with a pending key), plans, licenses, activated machines, an integration and a sender domain. */
async function sourceAccount(h: Harness, owner: SignedIn) {
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await h.api(method, path, body, { session: owner });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  const editor = await api('POST', '/products', { name: 'Acme Editor', keyPrefix: 'ED', offlineDays: 30 });
  await api('POST', `/products/${editor.id}/keys`);
  await api('POST', `/products/${editor.id}/keys/k2/activate`); // k1 retired, k2 signs
  await api('POST', `/products/${editor.id}/keys`); // k3 pending
  const viewer = await api('POST', '/products', { name: 'Acme Viewer', keyPrefix: 'VW' });
  const pro = await api('POST', `/products/${editor.id}/plans`, { code: 'pro', kind: 'subscription', maxActivations: 3, entitlements: ['export'] });
  const life = await api('POST', `/products/${viewer.id}/plans`, { code: 'life', kind: 'perpetual', maxMajor: 2, maxActivations: 3 });
  const paidUntil = new Date(h.clock.now() + 60 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const machines: Machine[] = [];
  const licenses = [];
  for (const [i, plan] of [pro, pro, life].entries()) {
    const body = { plan: plan.id, email: `buyer${i}@example.test`, name: `Buyer ${i}`, ...(plan.code === 'pro' ? { paidUntil } : {}) };
    licenses.push((await api('POST', '/licenses', body)) as { id: string; key: string; product: string });
  }
  for (const [i, license] of licenses.entries()) {
    for (let m = 0; m <= i; m++) {
      const fp = fingerprint(license.product, `${i}-${m}`);
      const activated = await h.client('activate', { product: license.product, key: license.key, fingerprint: fp, name: `machine ${m}` });
      expect(activated.status, JSON.stringify(activated.body)).toBe(200);
      machines.push({ product: license.product, key: license.key, fingerprint: fp, licenseId: license.id });
    }
  }
  const spare = (await api('POST', '/licenses', { plan: pro.id, email: 'spare@example.test', paidUntil })) as { id: string; key: string };
  // On the products' revocation lists: a revoked license's machine and a machine freed by the vendor.
  const listed: { product: string; fingerprint: string; certificate: string }[] = [];
  const gone = (await api('POST', '/licenses', { plan: pro.id, email: 'gone@example.test', paidUntil })) as { id: string; key: string; product: string };
  for (const [key, product, n] of [[gone.key, gone.product, 'gone'], [licenses[0]!.key, licenses[0]!.product, 'freed']] as const) {
    const fp = fingerprint(product, n);
    const activated = await h.client('activate', { product, key, fingerprint: fp });
    expect(activated.status, JSON.stringify(activated.body)).toBe(200);
    listed.push({ product, fingerprint: fp, certificate: activated.body.certificate });
    if (n === 'freed') await api('DELETE', `/activations/${activated.body.activation}`);
  }
  await api('POST', `/licenses/${gone.id}/revoke`);
  await api('POST', `/licenses/${licenses[1]!.id}/suspend`);
  const shop = await api('POST', '/integrations', { provider: 'provider_b', product: viewer.id, webhookSecret: 'whsec-do-not-export', priceMap: { '123': 'life' } });
  // A webhook purchase: its license carries the order, which the import must keep licensed once.
  const bought = await h.engine.applyPaymentCommand(shop.id, orderEvent('order_created:orders:4412093:1'));
  expect(bought.result).toBe('processed');
  const purchased = await h.engine.getLicense(h.accountId, bought.licenseId!);
  await api('POST', '/integrations', { provider: 'provider_a', product: editor.id, apiKey: 'pa-key-do-not-export', priceMap: { pri_1: 'pro' } });
  await api('POST', '/account/sender-domain', { domain: 'mail.acme.test' });
  const apiKey = await api('POST', '/api-keys', { name: 'ci' });
  return { editor, viewer, machines, licenses, spare, gone, listed, shop: shop.id as string, purchased, apiKeyValue: apiKey.key as string };
}

/** provider_b's paid order 4412093 (variant 123) as the engine receives it, under `eventId`. */
function orderEvent(eventId: string): PurchaseCompletedCommand {
  return {
    kind: 'purchase_completed',
    provider: 'provider_b',
    eventId,
    eventType: 'order_created',
    occurredAt: '2030-01-15T10:00:00Z',
    customer: { providerCustomerId: null, email: 'shopper@example.test', name: null },
    orderId: '4412093',
    priceId: '123',
    quantity: 1,
  };
}

/** The `kid` of a certificate, read from its (decoded, signed) payload. */
function kidOf(certificate: string): string {
  const decoded = decodeCertificate(certificate);
  if (!decoded.ok) throw new Error('not a certificate');
  return (decoded.payload as { kid: string }).kid;
}

const SECTIONS = [
  'format', 'exportedAt', 'exportId', 'account', 'senderDomain', 'apiKeys', 'members', 'products', 'signingKeys', 'plans', 'customers', 'integrations',
  'providerCustomers', 'licenses', 'activations', 'revocationEntries', 'processedEvents', 'auditEvents',
];

describe('account export and import', () => {
  it('exports from the embedded store, imports into MariaDB with the CLI, and every activated machine validates there with the same key and kids', async () => {
    const h = await createHarness({ mode: 'in-process', store: 'embedded' });
    const owner = await h.signIn();
    const member = await h.signIn({ role: 'member' });
    const source = await sourceAccount(h, owner);
    const dir = await mkdtemp(join(tmpdir(), 'svc-round-trip-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));

    // The export, streamed over HTTP in the owner's session.
    const res = await h.fetch('/v1/account/export', { method: 'POST', headers: owner.headers });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('content-disposition')).toMatch(new RegExp(`attachment; filename="svc-account-export-${h.accountId}-\\d{4}-\\d{2}-\\d{2}\\.json"`));
    const text = await res.text();
    const doc = JSON.parse(text);
    expect(Object.keys(doc)).toEqual(SECTIONS);
    expect(doc.format).toBe('svc-account-export-v1');
    expect(doc.account.id).toBe(h.accountId);
    expect(doc.products.map((p: { id: string }) => p.id).sort()).toEqual([source.editor.id, source.viewer.id].sort());
    expect(doc.signingKeys.map((k: { kid: string; status: string }) => `${k.kid}:${k.status}`).sort()).toEqual(['k1:active', 'k1:retired', 'k2:active', 'k3:pending']);
    expect(doc.licenses).toHaveLength(6);
    expect(doc.licenses.map((l: { key: string }) => l.key).sort()).toEqual([...source.licenses.map((l) => l.key), source.spare.key, source.gone.key, source.purchased.key].sort());
    expect(doc.revocationEntries.map((e: { fingerprint: string | null }) => e.fingerprint).sort()).toEqual([source.listed[1]!.fingerprint, null]);
    expect(doc.activations).toHaveLength(source.machines.length + 1); // and the revoked license's machine
    expect(doc.integrations.map((i: { hasWebhookSecret: boolean; hasApiKey: boolean }) => [i.hasWebhookSecret, i.hasApiKey]).sort()).toEqual([[false, true], [true, false]]);
    expect(doc.apiKeys.map((k: { name: string }) => k.name).sort()).toEqual(['ci', 'default']);
    expect(doc.members.map((m: { email: string }) => m.email)).toEqual([member.email]);
    expect(text).not.toContain(member.token);
    expect(doc.senderDomain).toMatchObject({ domain: 'mail.acme.test', status: 'pending' });
    expect(doc.auditEvents.at(-1)).toMatchObject({ id: doc.exportId, type: 'account.exported' });
    // No secret of any kind: key values, webhook and provider secrets, private keys (sealed or clear), the DKIM key.
    for (const secret of ['whsec-do-not-export', 'pa-key-do-not-export', source.apiKeyValue, '"hash"', '"privateKey"', 'dkimPrivateKey', 'PRIVATE KEY', '"v1.']) {
      expect(text, secret).not.toContain(secret);
    }
    const events = await h.api('GET', '/events', undefined, { session: owner });
    expect(events.body.data[0]).toMatchObject({ id: doc.exportId, type: 'account.exported', license: null });

    // The key export of each product, as the owner downloads them.
    const exportFile = join(dir, 'account.json');
    await writeFile(exportFile, text);
    const keyFiles: string[] = [];
    for (const product of [source.editor, source.viewer]) {
      const keys = await h.api('POST', `/products/${product.id}/keys/export`, undefined, { session: owner });
      expect(keys.status).toBe(200);
      const file = join(dir, `keys-${product.id}.json`);
      await writeFile(file, JSON.stringify(keys.body));
      keyFiles.push(file);
    }
    const publicKeys: Record<string, Record<string, string>> = {};
    for (const product of [source.editor, source.viewer]) {
      const list = await h.api('GET', `/products/${product.id}/keys`);
      publicKeys[product.id] = Object.fromEntries(list.body.data.map((k: { kid: string; publicKey: string }) => [k.kid, k.publicKey]));
    }

    // Import into a fresh MariaDB database with another master key.
    const db = await createTestDatabase('import');
    cleanups.push(() => db.drop());
    await migrate(db.url);
    const masterKey = randomBytes(32);
    const env = { ...cleanEnv, SVC_MASTER_KEY: masterKey.toString('base64') };
    const keyArgs = keyFiles.flatMap((f) => ['--keys', f]);

    // Refused without every product's key export, and nothing written.
    const missing = await runCli(['account', 'import', '--file', exportFile, '--keys', keyFiles[0]!, '--database', db.url], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no private key for k1 of product|give that product's key export/);
    // A file cut short is refused, and nothing written.
    const cut = join(dir, 'cut.json');
    await writeFile(cut, text.slice(0, Math.floor(text.length * 0.8)));
    const truncated = await runCli(['account', 'import', '--file', cut, ...keyArgs, '--database', db.url], env);
    expect(truncated.code).toBe(1);
    expect(await db.admin<{ n: number }[]>(`SELECT COUNT(*) AS n FROM \`${db.name}\`.accounts`)).toEqual([{ n: 0 }]);
    expect(await db.admin<{ n: number }[]>(`SELECT COUNT(*) AS n FROM \`${db.name}\`.licenses`)).toEqual([{ n: 0 }]);

    const imported = await runCli(['account', 'import', '--file', exportFile, ...keyArgs, '--database', db.url], env);
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    const out = JSON.parse(imported.stdout) as { accountId: string; apiKey: string; counts: Record<string, number> };
    expect(out.accountId).toBe(h.accountId);
    expect(out.counts).toMatchObject({ members: 1, products: 2, signingKeys: 4, plans: 2, licenses: 6, activations: source.machines.length + 1, integrations: 2, revocationEntries: 2 });

    // The imported account on MariaDB, at the same clock as the source.
    const store = createMySqlStore(db.url);
    cleanups.push(() => store.close());
    const clock = { now: () => h.clock.now() };
    const target: LicenseEngine = createLicenseEngine({
      store, clock, random: cryptoRandom, ids: createIdGenerator({ clock, random: cryptoRandom }), secrets: createSecretBox(new Uint8Array(masterKey)),
    });
    expect((await target.authenticate(out.apiKey))?.accountId).toBe(h.accountId);
    const now = Math.floor(h.clock.now() / 1000);
    for (const machine of source.machines) {
      const license = await target.getLicense(h.accountId, machine.licenseId);
      const before = await h.engine.getLicense(h.accountId, machine.licenseId);
      expect(license).toEqual(before);
      if (license.status === 'suspended') {
        await expect(target.validate({ product: machine.product, key: machine.key, fingerprint: machine.fingerprint })).rejects.toMatchObject({ code: 'license_suspended' });
        continue;
      }
      const { certificate } = await target.validate({ product: machine.product, key: machine.key, fingerprint: machine.fingerprint });
      const expectedKid = machine.product === source.editor.id ? 'k2' : 'k1';
      expect(kidOf(certificate)).toBe(expectedKid);
      const verified = await verifyCertificate(certificate, { publicKeys: publicKeys[machine.product]!, product: machine.product, fingerprint: machine.fingerprint, appMajor: 1, now });
      expect(verified.outcome).toBe('valid');
    }
    // The imported product's list is the source's, seq and bytes: the revoked license's and the freed machine's certificates stay revoked.
    const sourceList = await h.engine.getRevocationList(source.editor.id);
    const targetList = await target.getRevocationList(source.editor.id);
    expect(targetList).toEqual(sourceList);
    const checkedList = await verifyRevocationList(targetList.text, { publicKeys: publicKeys[source.editor.id]!, product: source.editor.id });
    if (checkedList.outcome !== 'valid') throw new Error(`the imported list is ${checkedList.outcome}`);
    expect([checkedList.list.licenseCount, checkedList.list.activationCount]).toEqual([1, 1]);
    for (const gone of source.listed) {
      const options = { publicKeys: publicKeys[gone.product]!, product: gone.product, fingerprint: gone.fingerprint, appMajor: 1, now };
      expect((await verifyCertificate(gone.certificate, { ...options, revocations: checkedList.list })).outcome).toBe('revoked');
    }
    // A new machine on the spare license activates there too, under the same kid.
    const spareFp = fingerprint(source.editor.id, 'new');
    const fresh = await target.activate({ product: source.editor.id, key: source.spare.key, fingerprint: spareFp });
    expect(kidOf(fresh.certificate)).toBe('k2');
    // Integrations come without secrets; the pending key is still pending and activates.
    expect((await target.listIntegrations(h.accountId)).data.map((i) => [i.hasWebhookSecret, i.hasApiKey])).toEqual([[false, false], [false, false]]);
    expect((await target.activateSigningKey(h.accountId, source.editor.id, 'k3')).status).toBe('active');
    expect((await target.getSenderDomain(h.accountId)).status).toBe('none');
    expect((await target.listMembers(h.accountId)).data.map((m) => m.email)).toEqual([member.email]);
    // The purchased order keeps its one license: another event of that order is ignored there and names it.
    expect(await target.getLicense(h.accountId, source.purchased.id)).toEqual(source.purchased);
    const later = await target.applyPaymentCommand(source.shop, orderEvent('order_created:orders:4412093:2'));
    expect(later).toMatchObject({ result: 'ignored', licenseId: source.purchased.id });
    const targetEvents = await target.listEvents(h.accountId);
    expect(targetEvents.data.map((e) => e.type)).toEqual(expect.arrayContaining(['signing_key.rotated', 'account.imported', 'account.exported']));

    // The same export again: the account exists, nothing changes.
    const again = await runCli(['account', 'import', '--file', exportFile, ...keyArgs, '--database', db.url], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists/);
    expect(await db.admin<{ n: number }[]>(`SELECT COUNT(*) AS n FROM \`${db.name}\`.licenses`)).toEqual([{ n: 6 }]);
    expect(await readFile(exportFile, 'utf8')).toBe(text);
  });

  it('the CLI names what is missing: where the account goes, and the key exports', async () => {
    const noStore = await runCli(['account', 'import', '--file', 'export.json', '--keys', 'keys.json'], cleanEnv);
    expect([noStore.code, noStore.stderr]).toEqual([1, 'error: account import needs --data <dir> or --database <url> (where the account goes)\n']);
    const noKeys = await runCli(['account', 'import', '--file', 'export.json', '--data', 'somewhere'], cleanEnv);
    expect([noKeys.code, noKeys.stderr]).toEqual([1, 'error: missing --keys <key export> (once per product; or SVC_IMPORT_KEYS)\n']);
  });
});
