import { hashLicenseKey } from '@svc-licensing/cert-format';
import { createIdGenerator, createLicenseEngine, createSecretBox, cryptoRandom, LicensingError } from '@svc-licensing/license-engine';
import type { ClientLicenseQuery, ClientLicenseRecords, StoreTx } from '@svc-licensing/license-engine';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMySqlStore } from '../../src/stores/mysql/index.js';
import type { MySqlStore } from '../../src/stores/mysql/index.js';
import { clientLicensesOf } from '../../src/stores/mysql/joined-reads.js';
import type { ClientRow } from '../../src/stores/mysql/joined-reads.js';
import { createTestDatabase, mysqlServerUrl } from '../support/mysql-database.js';
import type { TestDatabase } from '../support/mysql-database.js';
import { createWireRecorder } from '../support/mysql-wire.js';
import type { WireRecorder } from '../support/mysql-wire.js';

// The client reads of read-only units (validate's) made at the same moment go to MariaDB as one
// statement: a statement of six tables costs the database about 110 µs whatever it reads, and
// about 10 µs more per call in it. Each call must still get exactly its own records, fresh.
let db: TestDatabase;
let wire: WireRecorder;
let store: MySqlStore;
let engine: ReturnType<typeof createLicenseEngine>;
let accountId: string;
let productId: string;
let otherProductId: string;
let planId: string;
const keys: string[] = [];

const fingerprint = (n: number) => n.toString(16).padStart(64, 'a');
const codeOf = (error: unknown) => (LicensingError.is(error) ? error.code : String(error));

beforeAll(async () => {
  db = await createTestDatabase('client_reads');
  const server = new URL(mysqlServerUrl);
  wire = await createWireRecorder({ host: server.hostname, port: Number(server.port || 3306) });
  // Two connections in each pool: fewer than the units read at once below.
  store = createMySqlStore(`mysql://root@127.0.0.1:${wire.port}/${db.name}`, { poolSize: 2, acquireTimeoutMs: 3000 });
  await store.ready();
  const clock = { now: () => Date.parse('2026-01-10T12:00:00Z') };
  engine = createLicenseEngine({ store, clock, random: cryptoRandom, ids: createIdGenerator({ clock, random: cryptoRandom }), secrets: createSecretBox(new Uint8Array(32).fill(7)) });
  const { account } = await engine.createAccount({ name: 'Reads', ownerEmail: 'owner@reads.test', servicePlan: 'unlimited' });
  accountId = account.id;
  const product = await engine.createProduct(accountId, { name: 'App', keyPrefix: 'APP-' });
  productId = product.id;
  otherProductId = (await engine.createProduct(accountId, { name: 'Other', keyPrefix: 'OTH-' })).id;
  const plan = await engine.createPlan(accountId, productId, { code: 'pro', kind: 'perpetual', maxActivations: 3 });
  planId = plan.id;
  for (let i = 0; i < 4; i++) {
    const { license } = await engine.createLicense(accountId, { plan: plan.id, email: `buyer${i}@reads.test` });
    keys.push(license.key);
    await engine.activate({ product: productId, key: license.key, fingerprint: fingerprint(i) });
  }
  // The read pool's connection set up (its session variables) before a test counts requests.
  await store.transaction((tx) => tx.get('accounts', accountId), { readOnly: true });
});
afterAll(async () => {
  await store?.close();
  await wire?.close();
  await db?.drop();
});

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

describe('mysql store client reads of read-only units', () => {
  test('reads made at the same moment go in one statement, each answered with what its separate reads find', async () => {
    const queries: ClientLicenseQuery[] = [
      ...keys.map((key, i) => ({ productId, keyHash: hashLicenseKey(key), fingerprint: fingerprint(i) })), // activated
      { productId, keyHash: hashLicenseKey(keys[0]!), fingerprint: fingerprint(9) }, // not activated
      { productId: otherProductId, keyHash: hashLicenseKey(keys[1]!), fingerprint: fingerprint(1) }, // another product's key
      { productId: 'prd_missing', keyHash: hashLicenseKey(keys[2]!), fingerprint: fingerprint(2) }, // no such product
      { productId, keyHash: hashLicenseKey('APP-AAAA-BBBB-CCCC-DDDD'), fingerprint: fingerprint(0) }, // no such key
    ];
    wire.clear();
    const found = await Promise.all(queries.map((q) => store.transaction((tx) => tx.readClientLicense!(q), { readOnly: true })));
    const requests = wire.requests().filter((r) => r.kind !== 'prepare');
    expect(requests.map((r) => r.kind)).toEqual(['execute']);
    expect(requests[0]!.sql.match(/UNION ALL/g)).toHaveLength(queries.length - 1);
    const expected = await store.transaction(async (tx) => {
      const all: ClientLicenseRecords[] = [];
      for (const q of queries) all.push(await separateReads(tx, q));
      return all;
    }, { readOnly: true });
    expect(found).toEqual(expected);
    expect(found[0]!.activation?.fingerprint).toBe(fingerprint(0));
    expect(found[4]!.activation).toBeNull();
  });

  test('a read-only unit holds no connection while its client read waits: more units than pooled connections all finish', async () => {
    const q = { productId, keyHash: hashLicenseKey(keys[0]!), fingerprint: fingerprint(0) };
    const reads = Array.from({ length: 8 }, () =>
      store.transaction(async (tx) => {
        await tx.get('accounts', accountId);
        return tx.readClientLicense!(q);
      }, { readOnly: true }),
    );
    const found = await Promise.all(reads);
    expect(found.map((f) => f.license?.keyHash)).toEqual(Array(8).fill(q.keyHash));
  });

  test('a plan changed between two reads is read as changed, and records shared by several calls cannot be changed by one of them', async () => {
    const q = { productId, keyHash: hashLicenseKey(keys[0]!), fingerprint: fingerprint(0) };
    const read = () => Promise.all([0, 1].map(() => store.transaction((tx) => tx.readClientLicense!(q), { readOnly: true })));
    const [before, alike] = await read();
    expect(before!.plan?.entitlements).toEqual([]);
    expect(() => (before!.plan!.entitlements as string[]).push('export')).toThrow(TypeError);
    expect(() => Object.assign(before!.product!, { name: 'Changed' })).toThrow(TypeError);
    expect(alike!.plan?.entitlements).toEqual([]);
    expect(alike!.product?.name).toBe('App');
    await engine.updatePlan(accountId, planId, { entitlements: ['export'] });
    const [after] = await read();
    expect(after!.plan?.entitlements).toEqual(['export']);
    const { certificate } = await engine.validate({ product: productId, key: keys[0]!, fingerprint: fingerprint(0) });
    expect(typeof certificate).toBe('string');
  });

  test('validates gathered with others after a revoke was acknowledged are refused; the others are not', async () => {
    const { data } = await engine.listLicenses(accountId, { email: 'buyer3@reads.test' });
    const revoked = data[0]!;
    await engine.revokeLicense(accountId, revoked.id);
    const answers = await Promise.all(
      keys.map((key, i) =>
        engine.validate({ product: productId, key, fingerprint: fingerprint(i) }).then(
          () => 'ok',
          (error: unknown) => codeOf(error),
        ),
      ),
    );
    expect(answers).toEqual(['ok', 'ok', 'ok', 'license_revoked']);
  });

  test('a product with several active keys answers with the lowest key id, as the separate read does', () => {
    const doc = (record: object) => JSON.stringify(record);
    const row = (n: number, key: string | null) =>
      ({ n, product: doc({ id: 'prd_1' }), license: doc({ id: `lic_${n}` }), plan: doc({ id: 'pln_1' }), account: doc({ id: 'acc_1' }), activation: null, signing_key: key }) as ClientRow;
    const found = clientLicensesOf([row(0, doc({ id: 'key_b' })), row(1, null), row(0, doc({ id: 'key_a' })), row(0, doc({ id: 'key_c' }))], 2);
    expect(found.map((f) => [f.license?.id, f.signingKey?.id ?? null])).toEqual([
      ['lic_0', 'key_a'],
      ['lic_1', null],
    ]);
    expect(() => clientLicensesOf([row(0, null)], 2)).toThrow(/1 rows for 2 client reads/);
  });
});
