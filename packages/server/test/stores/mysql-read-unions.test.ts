import { createIdGenerator, createLicenseEngine, createSecretBox, cryptoRandom } from '@svc-licensing/license-engine';
import type { CounterRecord, LicenseEngine, StoreTx } from '@svc-licensing/license-engine';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMySqlStore } from '../../src/stores/mysql/index.js';
import type { MySqlStore } from '../../src/stores/mysql/index.js';
import { createTestDatabase, mysqlServerUrl } from '../support/mysql-database.js';
import type { TestDatabase } from '../support/mysql-database.js';
import { createWireRecorder } from '../support/mysql-wire.js';
import type { WireRecorder } from '../support/mysql-wire.js';

// One-row reads of a query joined in one `UNION ALL` statement (rule 12 of
// src/stores/mysql/unit-of-work.ts): the same records, missing ones included, as each read sent
// alone; locks where they were; and what a purchase's two events send, read off the wire.

let db: TestDatabase;
let wire: WireRecorder;
let store: MySqlStore;
let engine: LicenseEngine;
const ids = { account: '', revoked: '', fresh: '', plan: '', license: '', integration: '' };

beforeAll(async () => {
  db = await createTestDatabase('read_unions');
  const server = new URL(mysqlServerUrl);
  wire = await createWireRecorder({ host: server.hostname, port: Number(server.port || 3306) });
  store = createMySqlStore(`mysql://root@127.0.0.1:${wire.port}/${db.name}`, { poolSize: 1 });
  await store.ready();
  const clock = { now: () => Date.parse('2026-01-10T12:00:00Z') };
  engine = createLicenseEngine({ store, clock, random: cryptoRandom, ids: createIdGenerator({ clock, random: cryptoRandom }), secrets: createSecretBox(new Uint8Array(32).fill(5)) });
  const { account } = await engine.createAccount({ name: 'Unions', ownerEmail: 'owner@unions.test', servicePlan: 'unlimited' });
  const revoked = await engine.createProduct(account.id, { name: 'Revoked', keyPrefix: 'REV-' });
  const fresh = await engine.createProduct(account.id, { name: 'Fresh', keyPrefix: 'FRE-' });
  const plan = await engine.createPlan(account.id, revoked.id, { code: 'life', kind: 'perpetual' });
  await engine.createPlan(account.id, fresh.id, { code: 'life', kind: 'perpetual' });
  const { license } = await engine.createLicense(account.id, { plan: plan.id, email: 'buyer@unions.test' });
  await engine.revokeLicense(account.id, license.id);
  const integration = await engine.createIntegration(account.id, { provider: 'provider_a', product: fresh.id, webhookSecret: 'whsec_unions', priceMap: { pri_life: 'life' } });
  Object.assign(ids, { account: account.id, revoked: revoked.id, fresh: fresh.id, plan: plan.id, license: license.id, integration: integration.id });
  await store.transaction((tx) => tx.insert('counters', counter('c1')));
});
afterAll(async () => {
  await store.close();
  await wire.close();
  await db.drop();
});

const counter = (id: string): CounterRecord => ({ id, accountId: ids.account, count: 1, expiresAt: '2030-01-01T00:00:00Z' });

/** A statement by what it reads or writes; a joined read as `(SELECT a UNION ALL SELECT b)`. */
function shape(statement: string): string {
  // A read by id is a bare part (no parentheses), the others are in parentheses.
  if (/^\(SELECT |^SELECT \d+ AS `n`, /.test(statement)) {
    return `(${statement.split(' UNION ALL ').map((part) => shape((part.startsWith('(') ? part.slice(1, -1) : part).replace(/^SELECT \d+ AS `n`, /, 'SELECT '))).join(' UNION ALL ')})`;
  }
  const select = /^SELECT .*? FROM `(\w+)`/s.exec(statement);
  if (select) return `SELECT ${select[1]}${/ FOR UPDATE$/.test(statement) ? ' FOR UPDATE' : ''}`;
  const write = /^(INSERT INTO|UPDATE|DELETE FROM) `(\w+)`/.exec(statement);
  return write ? `${write[1]!.split(' ')[0]} ${write[2]}` : statement.startsWith('BEGIN NOT ATOMIC') ? 'GUARD' : statement;
}

/** The round trips since `wire.clear()`, one line each (a statement's first preparation left out). */
const trips = (): string[] =>
  wire
    .requests()
    .filter((r) => r.kind !== 'prepare')
    .map((r) => `${r.kind} ${r.sql.split(';\n').map(shape).join(' + ')}`);

async function recorded<T>(work: () => Promise<T>): Promise<{ result: T; trips: string[] }> {
  wire.clear();
  const result = await work();
  return { result, trips: trips() };
}

describe('one-row reads of a query in one statement', () => {
  const reads = (tx: StoreTx) =>
    Promise.all([
      tx.get('accounts', ids.account),
      tx.get('products', ids.revoked),
      tx.get('products', ids.fresh),
      tx.get('counters', 'missing'),
      tx.findOne('plans', { productId: ids.revoked }),
      tx.findOne('customers', { accountId: ids.account, email: 'nobody@unions.test' }),
      tx.get('licenses', ids.license),
      tx.get('counters', 'c1'),
    ]);

  test('go as one statement and find what each read finds alone, missing records and list positions included', async () => {
    const { result: together, trips: sent } = await recorded(() => store.transaction(reads));
    expect(sent).toEqual([
      'execute (SELECT accounts UNION ALL SELECT products UNION ALL SELECT products UNION ALL SELECT counters UNION ALL SELECT plans UNION ALL SELECT customers UNION ALL SELECT licenses UNION ALL SELECT counters)',
      'query COMMIT',
    ]);
    // Each read in a unit of its own: its own statement, nothing joined.
    expect(together).toEqual([
      await store.transaction((tx) => tx.get('accounts', ids.account)),
      await store.transaction((tx) => tx.get('products', ids.revoked)),
      await store.transaction((tx) => tx.get('products', ids.fresh)),
      null,
      await store.transaction((tx) => tx.findOne('plans', { productId: ids.revoked })),
      null,
      await store.transaction((tx) => tx.get('licenses', ids.license)),
      counter('c1'),
    ]);
    expect(together[1]!.revocationSeq).toBe(1);
    expect(together[2]!.revocationSeq).toBeUndefined();
    expect(together[4]!.id).toBe(ids.plan);
    // A read-only unit sends them alike.
    expect(await store.transaction(reads, { readOnly: true })).toEqual(together);
  });

  test('a locked read and a count keep their own statements, in the order asked; a read of many rows joins', async () => {
    const { result, trips: sent } = await recorded(() =>
      store.transaction((tx) =>
        Promise.all([
          tx.get('accounts', ids.account, { lock: true }),
          tx.get('products', ids.fresh),
          tx.findMany('plans', { accountId: ids.account }),
          tx.count('licenses', { accountId: ids.account }),
          tx.findOne('plans', { productId: ids.fresh }),
        ]),
      ),
    );
    expect(sent).toEqual([
      'query SELECT accounts FOR UPDATE + (SELECT products UNION ALL SELECT plans UNION ALL SELECT plans) + SELECT licenses',
      'query COMMIT',
    ]);
    expect(result[0]!.id).toBe(ids.account);
    expect(result[1]!.id).toBe(ids.fresh);
    expect(result[2]).toHaveLength(2);
    expect(result[3]).toBe(1);
    expect(result[4]!.productId).toBe(ids.fresh);
  });

  test("reads of many rows get their own statement's rows in ID order, also where an index would give another order", async () => {
    // Plans of one product whose codes sort against their IDs: a part whose ORDER BY MariaDB dropped
    // (a part without a LIMIT) reads them through `uq_plans_product_id_code`, in code order.
    const product = await engine.createProduct(ids.account, { name: 'Ordered', keyPrefix: 'ORD-' });
    const created = await engine.createPlan(ids.account, product.id, { code: 'life', kind: 'perpetual' });
    const first = (await store.transaction((tx) => tx.get('plans', created.id)))!;
    const copies = [`${first.id}_1`, `${first.id}_2`, `${first.id}_3`].map((id, i) => ({ ...first, id, code: ['zz', 'mm', 'aa'][i]! }));
    await store.transaction((tx) => Promise.all(copies.map((plan) => tx.insert('plans', plan))));
    const many = (tx: StoreTx) =>
      Promise.all([
        tx.findMany('plans', { productId: product.id }),
        tx.get('accounts', ids.account),
        tx.findMany('licenses', { accountId: ids.account }),
        tx.findMany('plans', { productId: 'missing' }),
        tx.findMany('plans', { productId: product.id, code: 'mm' }),
      ]);
    const { result, trips: sent } = await recorded(() => store.transaction(many));
    expect(sent).toEqual([
      'execute (SELECT plans UNION ALL SELECT accounts UNION ALL SELECT licenses UNION ALL SELECT plans UNION ALL SELECT plans)',
      'query COMMIT',
    ]);
    expect(result[0]!.map((p) => p.id)).toEqual([first.id, ...copies.map((p) => p.id)]);
    expect(result[0]!.map((p) => p.code)).toEqual(['life', 'zz', 'mm', 'aa']);
    expect(result).toEqual([
      await store.transaction((tx) => tx.findMany('plans', { productId: product.id })),
      await store.transaction((tx) => tx.get('accounts', ids.account)),
      await store.transaction((tx) => tx.findMany('licenses', { accountId: ids.account })),
      [],
      [copies[1]],
    ]);
    expect(await store.transaction(many, { readOnly: true })).toEqual(result);
  });

  test('a provider customer and the customer it names are two parts of the joined read, found as the two findOne calls find them', async () => {
    const integrationId = ids.integration;
    await engine.applyPaymentCommand(integrationId, {
      kind: 'customer_upserted',
      provider: 'provider_a',
      eventId: 'evt_pc_1',
      eventType: 'customer.created',
      occurredAt: '2026-01-10T11:59:00Z',
      customer: { providerCustomerId: 'ctm_pc_1', email: 'mapped@unions.test', name: 'Mapped' },
    });
    const read = (providerCustomerId: string) => (tx: StoreTx) =>
      Promise.all([tx.readProviderCustomer!({ integrationId, providerCustomerId, accountId: ids.account }), tx.get('accounts', ids.account)]);
    const { result, trips: sent } = await recorded(() => store.transaction(read('ctm_pc_1')));
    expect(sent).toEqual(['execute (SELECT provider_customers UNION ALL SELECT provider_customers UNION ALL SELECT accounts)', 'query COMMIT']);
    const [found] = result;
    const mapping = await store.transaction((tx) => tx.findOne('providerCustomers', { integrationId, providerCustomerId: 'ctm_pc_1' }));
    expect(mapping).not.toBeNull();
    expect(found.mapping).toEqual(mapping);
    expect(found.customer).toEqual(await store.transaction((tx) => tx.findOne('customers', { accountId: ids.account, email: 'mapped@unions.test' })));
    expect(found.customer!.email).toBe('mapped@unions.test');
    // Alone in its unit, the two reads still go as one statement; a missing mapping finds neither.
    const alone = await recorded(() => store.transaction((tx) => tx.readProviderCustomer!({ integrationId, providerCustomerId: 'ctm_none', accountId: ids.account })));
    expect(alone.trips).toEqual(['execute (SELECT provider_customers UNION ALL SELECT provider_customers)', 'query COMMIT']);
    expect(alone.result).toEqual({ mapping: null, customer: null });
  });

  test('with a claim, the joined read goes before it; a claim that clashes fails alone and the reads are answered', async () => {
    const both = (tx: StoreTx, id: string) =>
      Promise.all([tx.insert('counters', counter(id)).catch((e: Error) => e.name), tx.get('accounts', ids.account), tx.get('counters', 'c1')]);
    const fresh = await recorded(() => store.transaction((tx) => both(tx, 'claim-1')));
    expect(fresh.trips).toEqual(['query (SELECT accounts UNION ALL SELECT counters) + INSERT counters', 'query COMMIT']);
    const clash = await recorded(() => store.transaction((tx) => both(tx, 'claim-1')));
    expect(clash.trips).toEqual(['query (SELECT accounts UNION ALL SELECT counters) + INSERT counters', 'execute (SELECT accounts UNION ALL SELECT counters)', 'query COMMIT']);
    expect(clash.result[0]).toBe('StoreConflictError');
    expect(clash.result[1]!.id).toBe(ids.account);
    expect(clash.result[2]).toEqual(counter('c1'));
  });
});

describe("a purchase's statements", () => {
  const events = (n: number) => ({
    created: () =>
      engine.applyPaymentCommand(ids.integration, {
        kind: 'customer_upserted',
        provider: 'provider_a',
        eventId: `evt_c_${n}`,
        eventType: 'customer.created',
        occurredAt: '2026-01-10T11:59:00Z',
        customer: { providerCustomerId: `ctm_${n}`, email: `buyer${n}@unions.test`, name: `Buyer ${n}` },
      }),
    completed: () =>
      engine.applyPaymentCommand(ids.integration, {
        kind: 'purchase_completed',
        provider: 'provider_a',
        eventId: `evt_t_${n}`,
        eventType: 'transaction.completed',
        occurredAt: '2026-01-10T11:59:30Z',
        customer: { providerCustomerId: `ctm_${n}`, email: null, name: null },
        orderId: `txn_${n}`,
        priceId: 'pri_life',
        quantity: 1,
      }),
  });

  test('each event reads its integration, account (a purchase also its product) and first reads in one statement: 17 statements per purchase', async () => {
    const warm = events(1);
    await warm.created();
    await engine.releaseKeyEmail((await warm.completed()).keyEmail!.licenseId);
    const { created, completed } = events(2);
    const first = await recorded(created);
    expect(first.trips).toEqual([
      'query (SELECT provider_customers UNION ALL SELECT customers UNION ALL SELECT integrations UNION ALL SELECT accounts) + INSERT processed_events',
      'query INSERT provider_customers + INSERT customers + INSERT audit_events + INSERT incoming_deliveries + COMMIT',
    ]);
    const second = await recorded(completed);
    // The reads by id go as bare parts (no parentheses, order or limit), the others each with their own.
    const union = wire.requests().filter((r) => r.kind !== 'prepare').map((r) => r.sql.split(';\n')[0]!);
    expect(second.result.result).toBe('processed');
    expect(second.result.licenseId).toMatch(/^lic_/);
    const release = await recorded(() => engine.releaseKeyEmail(second.result.keyEmail!.licenseId));
    const all = [...first.trips, ...second.trips, ...release.trips];
    expect(second.trips[0]).toBe(
      'query (SELECT plans UNION ALL SELECT sender_domains UNION ALL SELECT provider_customers UNION ALL SELECT provider_customers UNION ALL SELECT licenses UNION ALL SELECT counters UNION ALL SELECT integrations UNION ALL SELECT products UNION ALL SELECT accounts) + INSERT processed_events',
    );
    expect(all.map((t) => t.split(' + ').length).reduce((a, b) => a + b)).toBe(17);
    expect(union.some((sql) => /^\(SELECT 0 AS `n`, `doc`, .* FROM `plans` .* UNION ALL SELECT 6 AS `n`, `doc`, NULL AS `rvl_seq`, NULL AS `rvl_at` FROM `integrations` WHERE `id` = '[^']+' UNION ALL /s.test(sql))).toBe(true);
  });
});
