import { createIdGenerator, createLicenseEngine, createSecretBox, cryptoRandom } from '@svc-licensing/license-engine';
import type { CounterRecord, StoreTx } from '@svc-licensing/license-engine';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMySqlStore } from '../../src/stores/mysql/index.js';
import type { MySqlStore } from '../../src/stores/mysql/index.js';
import { createTestDatabase, mysqlServerUrl } from '../support/mysql-database.js';
import type { TestDatabase } from '../support/mysql-database.js';
import { createWireRecorder } from '../support/mysql-wire.js';
import type { WireRecorder } from '../support/mysql-wire.js';

// Which requests a unit of work sends and how its statements are grouped into them, read off the
// wire (each command packet is one round trip), for the batching rules written at the top of
// src/stores/mysql/unit-of-work.ts. Each round trip costs a busy server about 100 µs of CPU, and
// the order of reads and claims is what makes reads wait for the Galera cluster's earlier commits.

let db: TestDatabase;
let wire: WireRecorder;
let store: MySqlStore;
/** The same store as `store` without MariaDB's guard blocks: the path MySQL 8 takes. */
let plain: MySqlStore;

beforeAll(async () => {
  db = await createTestDatabase('round_trips');
  const server = new URL(mysqlServerUrl);
  wire = await createWireRecorder({ host: server.hostname, port: Number(server.port || 3306) });
  const url = `mysql://root@127.0.0.1:${wire.port}/${db.name}`;
  store = createMySqlStore(url, { poolSize: 1 });
  plain = createMySqlStore(url, { poolSize: 1, compoundStatements: false });
  await store.ready();
  await plain.ready();
  await store.transaction((tx) => Promise.all([tx.insert('counters', counter('a', 1)), tx.insert('counters', counter('b', 1))]));
  // Every pool's connection set up (its session variables) before the tests count requests.
  await store.transaction((tx) => tx.get('counters', 'a'), { readOnly: true });
  await plain.transaction((tx) => tx.get('counters', 'a'));
});
afterAll(async () => {
  await store.close();
  await plain.close();
  await wire.close();
  await db.drop();
});

const counter = (id: string, count = 0): CounterRecord => ({ id, accountId: 'acc_rt', count, expiresAt: '2030-01-01T00:00:00Z' });

/**
 * `SELECT counters`, `INSERT counters`, `GUARD` (an anonymous block), `COMMIT`: a statement by what
 * it does; one-row reads joined in one statement as `(SELECT counters UNION ALL SELECT accounts)`.
 */
function shape(statement: string): string {
  // A read by id is a bare part (no parentheses), the others are in parentheses.
  if (/^\(SELECT |^SELECT \d+ AS `n`, /.test(statement)) {
    return `(${statement.split(' UNION ALL ').map((part) => shape((part.startsWith('(') ? part.slice(1, -1) : part).replace(/^SELECT \d+ AS `n`, /, 'SELECT '))).join(' UNION ALL ')})`;
  }
  const select = /^SELECT .*? FROM `(\w+)`/s.exec(statement);
  if (select) return `SELECT ${select[1]}${/ FOR UPDATE$/.test(statement) ? ' FOR UPDATE' : ''}`;
  const write = /^(INSERT INTO|UPDATE|DELETE FROM) `(\w+)`/.exec(statement);
  if (write) return `${write[1]!.split(' ')[0]} ${write[2]}`;
  if (statement.startsWith('BEGIN NOT ATOMIC')) return 'GUARD';
  return statement;
}

/**
 * The requests `work` made as one unit, one line per round trip: `query` or `execute` (a prepared
 * statement), then its statements' shapes joined by `+`. A statement's first preparation on the
 * connection is left out: it is paid once per connection, not per unit.
 */
async function roundTrips<T>(on: MySqlStore, work: (tx: StoreTx) => Promise<T>, readOnly = false): Promise<{ result: T | Error; trips: string[] }> {
  wire.clear();
  const result = await on.transaction(work, { readOnly }).catch((error: Error) => error);
  return { result, trips: recordedTrips() };
}

/** The round trips recorded since the last `wire.clear()`; the client's joined license read is named `readClientLicense`. */
function recordedTrips(): string[] {
  return wire
    .requests()
    .filter((r) => r.kind !== 'prepare')
    .map((r) => `${r.kind} ${r.sql.split(';\n').map(shape).join(' + ')}`.replace(/^execute SELECT `q`.*$/s, 'execute readClientLicense'));
}

/** The requests of one engine call, one line per round trip (as `roundTrips` shows a unit's). */
async function engineTrips(call: () => Promise<unknown>): Promise<string[]> {
  wire.clear();
  await call();
  return recordedTrips();
}

describe('mysql store round trips', () => {
  test('a lone read is one prepared statement, and the unit ends with its COMMIT', async () => {
    const { trips } = await roundTrips(store, (tx) => tx.get('counters', 'a'));
    expect(trips).toEqual(['execute SELECT counters', 'query COMMIT']);
  });

  test('reads asked for together go in one query', async () => {
    const { result, trips } = await roundTrips(store, (tx) =>
      Promise.all([tx.get('counters', 'a'), tx.findOne('counters', { accountId: 'acc_rt' }), tx.count('counters', {})]),
    );
    expect(trips).toEqual(['query (SELECT counters UNION ALL SELECT counters) + SELECT counters', 'query COMMIT']);
    expect((result as unknown[])[2]).toBeGreaterThanOrEqual(2);
  });

  test('a write asked for with reads goes last in their query, so the reads open the transaction', async () => {
    const { trips } = await roundTrips(store, (tx) =>
      Promise.all([tx.insert('counters', counter('claim-1')), tx.get('counters', 'a'), tx.get('counters', 'b', { lock: true })]),
    );
    expect(trips).toEqual(['query SELECT counters + SELECT counters FOR UPDATE + INSERT counters', 'query COMMIT']);
  });

  test('a claim that clashes fails alone: its reads are asked again on their own and answered', async () => {
    const { result, trips } = await roundTrips(store, async (tx) => {
      const [clash, a] = await Promise.all([tx.insert('counters', counter('claim-1')).catch((e: Error) => e.name), tx.get('counters', 'a')]);
      return [clash, a?.id];
    });
    expect(result).toEqual(['StoreConflictError', 'a']);
    expect(trips).toEqual(['query SELECT counters + INSERT counters', 'execute SELECT counters', 'query COMMIT']);
  });

  test('held writes go with the COMMIT in one query, a guard after each held update of a row the unit did not insert or read locked', async () => {
    const { trips } = await roundTrips(store, async (tx) => {
      await tx.insert('counters', counter('held-1', 1), { defer: true });
      await tx.update('counters', counter('held-1', 2), { defer: true });
      await tx.update('counters', counter('a', 2), { defer: true });
    });
    expect(trips).toEqual(['query INSERT counters + UPDATE counters + UPDATE counters + GUARD + COMMIT']);
    // A row read with a lock and found is held by the unit to its COMMIT: its update cannot miss. A row read without one can.
    const locked = await roundTrips(store, async (tx) => {
      const [a, b] = await Promise.all([tx.get('counters', 'a', { lock: true }), tx.get('counters', 'b')]);
      await tx.update('counters', { ...a!, count: 6 }, { defer: true });
      await tx.update('counters', { ...b!, count: 6 }, { defer: true });
    });
    expect(locked.trips).toEqual(['query SELECT counters FOR UPDATE + SELECT counters', 'query UPDATE counters + UPDATE counters + GUARD + COMMIT']);
  });

  test('held inserts of one table go as one multi-row INSERT, consecutive held deletes of one table as one DELETE', async () => {
    const { trips } = await roundTrips(store, async (tx) => {
      await tx.insert('counters', counter('joined-1'), { defer: true });
      await tx.update('counters', counter('a', 3), { defer: true });
      await tx.insert('counters', counter('joined-2'), { defer: true });
      await tx.insert('counters', counter('joined-3'), { defer: true });
    });
    expect(trips).toEqual(['query INSERT counters + UPDATE counters + GUARD + INSERT counters + COMMIT']);
    const ids = ['joined-1', 'joined-2', 'joined-3'];
    const read = (tx: StoreTx) => Promise.all([...ids, 'a'].map((id) => tx.get('counters', id)));
    expect((await store.transaction(read)).map((r) => r?.id)).toEqual([...ids, 'a']);
    const deleted = await roundTrips(store, async (tx) => {
      for (const id of ids) await tx.delete('counters', id, { defer: true });
    });
    expect(deleted.trips).toEqual(['query DELETE counters + COMMIT']);
    expect(await store.transaction(read)).toEqual([null, null, null, counter('a', 3)]);
  });

  test('without guard blocks (MySQL 8) held updates go first and the COMMIT follows their check', async () => {
    const { trips } = await roundTrips(plain, async (tx) => {
      await tx.update('counters', counter('a', 3), { defer: true });
    });
    expect(trips).toEqual(['query UPDATE counters', 'query COMMIT']);
    // Nothing to check when every held update is of a row the unit holds locked: the COMMIT goes with them.
    const locked = await roundTrips(plain, async (tx) => {
      const a = await tx.get('counters', 'a', { lock: true });
      await tx.update('counters', { ...a!, count: 7 }, { defer: true });
    });
    expect(locked.trips).toEqual(['execute SELECT counters FOR UPDATE', 'query UPDATE counters + COMMIT']);
    const missing = await roundTrips(plain, async (tx) => {
      await tx.update('counters', counter('missing', 3), { defer: true });
    });
    expect((missing.result as Error).message).toBe('no counters record missing to update');
    expect(missing.trips).toEqual(['query UPDATE counters', 'query ROLLBACK']);
  });

  test('a held update that matched no row stops its batch before the COMMIT, and the unit rolls back', async () => {
    const { result, trips } = await roundTrips(store, async (tx) => {
      await tx.insert('counters', counter('held-2', 1), { defer: true });
      await tx.update('counters', counter('missing', 1), { defer: true });
    });
    expect((result as Error).message).toBe('no counters record missing to update');
    expect(trips).toEqual(['query INSERT counters + UPDATE counters + GUARD + COMMIT', 'query ROLLBACK']);
  });

  test('reads asked for after held writes go in the writes\' query; a write goes after them on its own', async () => {
    const { trips } = await roundTrips(store, async (tx) => {
      await tx.update('counters', counter('a', 4), { defer: true });
      await Promise.all([tx.get('counters', 'a'), tx.get('counters', 'b')]);
      await tx.update('counters', counter('b', 4), { defer: true });
      await tx.update('counters', counter('a', 5));
    });
    expect(trips).toEqual(['query UPDATE counters + (SELECT counters UNION ALL SELECT counters)', 'query UPDATE counters', 'execute UPDATE counters', 'query COMMIT']);
  });

  test('the COMMIT waits for a statement the work did not await', async () => {
    const { result, trips } = await roundTrips(store, async (tx) => {
      void tx.update('counters', counter('b', 5));
      return 'returned first';
    });
    expect(result).toBe('returned first');
    expect(trips).toEqual(['execute UPDATE counters', 'query COMMIT']);
  });

  test('a unit that sends no statement takes no connection and sends no COMMIT', async () => {
    const { result, trips } = await roundTrips(store, async () => 'nothing to do');
    expect(result).toBe('nothing to do');
    expect(trips).toEqual([]);
  });

  test('a read-only unit sends its reads autocommitted, without COMMIT', async () => {
    const { trips } = await roundTrips(store, (tx) => Promise.all([tx.get('counters', 'a'), tx.get('counters', 'b')]), true);
    expect(trips).toEqual(['execute (SELECT counters UNION ALL SELECT counters)']);
  });
});

describe('mysql store round trips of vendor actions', () => {
  /** An account with a license to revoke, and whether an endpoint subscribes to its events. */
  async function licenseToRevoke(withEndpoint: boolean) {
    const clock = { now: () => Date.parse('2026-01-10T12:00:00Z') };
    const engine = createLicenseEngine({ store, clock, random: cryptoRandom, ids: createIdGenerator({ clock, random: cryptoRandom }), secrets: createSecretBox(new Uint8Array(32).fill(3)) });
    const { account } = await engine.createAccount({ name: 'Trips', ownerEmail: `owner-${withEndpoint}@trips.test`, servicePlan: 'unlimited' });
    const product = await engine.createProduct(account.id, { name: 'App', keyPrefix: 'APP-' });
    const plan = await engine.createPlan(account.id, product.id, { code: 'life', kind: 'perpetual' });
    const { license } = await engine.createLicense(account.id, { plan: plan.id, email: 'buyer@trips.test' });
    if (withEndpoint) await engine.createWebhookEndpoint(account.id, { url: 'https://hooks.trips.test/svc', events: ['license.status_changed'] });
    return { engine, accountId: account.id, licenseId: license.id };
  }

  test('a revoke reads the account with the license: an endpoint subscribed to it costs no round trip', async () => {
    const without = await licenseToRevoke(false);
    const plain = await engineTrips(() => without.engine.revokeLicense(without.accountId, without.licenseId));
    const subscribed = await licenseToRevoke(true);
    const notified = await engineTrips(() => subscribed.engine.revokeLicense(subscribed.accountId, subscribed.licenseId));
    // The account tells whether anything subscribes; the notification's view reads the plan and product the answer reads anyway.
    // The revocation list's entry and seq (issue 29) cost no round trip of their own: the entry is an upsert, unread, and the
    // product's seq is moved in its own row (product_revocations, no foreign key points at it) by the last statement before
    // the COMMIT, so revokes of one product hold that lock for one statement; the license's write before it only shares the
    // product row (its foreign-key check), which no revoke locks exclusively.
    // The answer's plan and product are read before the writes, so the writes go with the COMMIT: the seq row's lock
    // is held for that one query, not from a query's answer through the event loop to a COMMIT of its own. They are found
    // by the license's ID (readLicenseParents), so they go in the license's query: 2 round trips, one fewer than before the lists;
    // both in one statement (`SELECT licenses` joining plans, products and the list position), not one statement each.
    // No guard block: the license was read locked, so its update cannot miss, and its foreign key keeps its product's row.
    expect(plain).toEqual([
      'query SELECT licenses FOR UPDATE + SELECT accounts + SELECT licenses',
      'query INSERT revocation_entries + UPDATE licenses + INSERT audit_events + INSERT product_revocations + COMMIT',
    ]);
    expect(notified).toEqual([
      'query SELECT licenses FOR UPDATE + SELECT accounts + SELECT licenses',
      'query INSERT revocation_entries + UPDATE licenses + INSERT audit_events + INSERT notification_deliveries + INSERT product_revocations + COMMIT',
    ]);
  });

  test('without guard blocks (MySQL 8) a revoke is 2 round trips too: its held updates need no check before the COMMIT', async () => {
    const clock = { now: () => Date.parse('2026-01-10T12:00:00Z') };
    const engine = createLicenseEngine({ store: plain, clock, random: cryptoRandom, ids: createIdGenerator({ clock, random: cryptoRandom }), secrets: createSecretBox(new Uint8Array(32).fill(3)) });
    const { account } = await engine.createAccount({ name: 'Trips', ownerEmail: 'owner@plain-trips.test', servicePlan: 'unlimited' });
    const product = await engine.createProduct(account.id, { name: 'App', keyPrefix: 'APP-' });
    const plan = await engine.createPlan(account.id, product.id, { code: 'life', kind: 'perpetual' });
    const { license } = await engine.createLicense(account.id, { plan: plan.id, email: 'buyer@trips.test' });
    const trips = await engineTrips(() => engine.revokeLicense(account.id, license.id));
    expect(trips).toEqual([
      'query SELECT licenses FOR UPDATE + SELECT accounts + SELECT licenses',
      'query INSERT revocation_entries + UPDATE licenses + INSERT audit_events + INSERT product_revocations + COMMIT',
    ]);
    expect((await engine.getRevocationList(product.id)).seq).toBe(1);
  });

  test("the license's parents in one statement: its plan and product with the list's position, or nothing for a missing license", async () => {
    const { engine, accountId, licenseId } = await licenseToRevoke(false);
    const license = await engine.getLicense(accountId, licenseId);
    const read = () => store.transaction((tx) => Promise.all([tx.get('licenses', licenseId, { lock: true }), tx.readLicenseParents!(licenseId), tx.readLicenseParents!('lic_missing')]));
    const [record, parents, missing] = await read();
    expect(parents.plan?.id).toBe(record!.planId);
    expect(parents.product).toEqual(await store.transaction((tx) => tx.get('products', record!.productId)));
    expect(parents.product?.revocationSeq).toBeUndefined();
    expect(missing).toEqual({ plan: null, product: null });
    await engine.revokeLicense(accountId, licenseId);
    const [, moved] = await read();
    expect(moved.product?.revocationSeq).toBe(1);
    expect(moved.product?.revocationsAt).toBe(Math.floor(Date.parse('2026-01-10T12:00:00Z') / 1000));
  });

  test('every audited vendor action reads the account with its first read, and never again', async () => {
    const { engine, accountId, licenseId } = await licenseToRevoke(true);
    const license = await engine.getLicense(accountId, licenseId);
    const { activation } = await engine.activate({ product: license.product, key: license.key, fingerprint: 'f'.repeat(64) });
    const integration = await engine.createIntegration(accountId, { provider: 'provider_b', product: license.product });
    const rejected = (eventId: string) => engine.recordWebhookRejected(integration.id, { provider: 'provider_b', eventType: 'order_created', result: 'conflict', detail: 'x', eventId });
    const actions: [string, () => Promise<unknown>][] = [
      ['suspend', () => engine.suspendLicense(accountId, licenseId)],
      ['reinstate', () => engine.reinstateLicense(accountId, licenseId)],
      ['PATCH', () => engine.updateLicense(accountId, licenseId, { seats: 2 })],
      ['delete activation', () => engine.deleteActivation(accountId, activation)],
      ['new signing key', () => engine.createSigningKey(accountId, license.product)],
      ['rotate', () => engine.activateSigningKey(accountId, license.product, 'k2')],
      ['export keys', () => engine.exportSigningKeys(accountId, license.product)],
      ['refused webhook', () => rejected('evt_1')],
      ['refused webhook, integration seen', () => rejected('evt_2')],
    ];
    for (const [name, action] of actions) {
      const trips = await engineTrips(action);
      const first = name === 'refused webhook' ? 1 : 0; // the integration's account is known only once it is read
      expect(trips.filter((t) => t.includes('SELECT accounts')), `${name}: ${trips.join(' | ')}`).toEqual([trips[first]]);
    }
  });
});

describe('mysql store round trips of a purchase and its key e-mail', () => {
  test("a key e-mail's release asked for while a purchase's unit runs goes with that unit's COMMIT, not as a unit of its own", async () => {
    const clock = { now: () => Date.parse('2026-01-10T12:00:00Z') };
    const engine = createLicenseEngine({ store, clock, random: cryptoRandom, ids: createIdGenerator({ clock, random: cryptoRandom }), secrets: createSecretBox(new Uint8Array(32).fill(3)) });
    const { account } = await engine.createAccount({ name: 'Mail', ownerEmail: 'owner@mail-trips.test', servicePlan: 'unlimited' });
    const product = await engine.createProduct(account.id, { name: 'App', keyPrefix: 'APP-' });
    await engine.createPlan(account.id, product.id, { code: 'life', kind: 'perpetual' });
    const integration = await engine.createIntegration(account.id, { provider: 'provider_b', product: product.id, webhookSecret: 'whsec_mail', priceMap: { var_life: 'life' } });
    const purchase = (n: number) =>
      engine.applyPaymentCommand(integration.id, {
        kind: 'purchase_completed',
        provider: 'provider_b',
        eventId: `evt_mail_${n}`,
        eventType: 'order_created',
        occurredAt: '2026-01-10T11:59:00Z',
        customer: { providerCustomerId: null, email: `buyer${n}@mail-trips.test`, name: `Buyer ${n}` },
        orderId: `ord_${n}`,
        priceId: 'var_life',
        quantity: 1,
      });
    const first = (await purchase(1)).keyEmail!.licenseId;
    const alone = await engineTrips(() => engine.releaseKeyEmail(first));
    expect(alone).toEqual(['query DELETE email_reservations + COMMIT']); // no purchase running: a unit of its own
    const second = (await purchase(2)).keyEmail!.licenseId;
    const carried = await engineTrips(() => Promise.all([purchase(3), engine.releaseKeyEmail(second)]));
    expect(carried.filter((t) => t.endsWith('COMMIT'))).toHaveLength(1);
    expect(carried.at(-1)).toMatch(/^query INSERT .*\+ DELETE email_reservations \+ COMMIT$/);
    // Ended: the next send of that license is not `key_email_in_progress`.
    await engine.reserveKeyEmail(account.id, second);
  });
});

describe('mysql store round trips of a floating heartbeat', () => {

  test('a heartbeat on schedule reads, then renews in one compare and set without the license lock; one inside the resolution only reads; a late one locks', async () => {
    let at = Date.parse('2026-01-10T12:00:00Z');
    const clock = { now: () => at };
    const deps = { store, clock, random: cryptoRandom, ids: createIdGenerator({ clock, random: cryptoRandom }), secrets: createSecretBox(new Uint8Array(32).fill(3)) };
    const engine = createLicenseEngine(deps);
    const { account } = await engine.createAccount({ name: 'Seats', ownerEmail: 'owner@seats-trips.test', servicePlan: 'unlimited' });
    const product = await engine.createProduct(account.id, { name: 'App', keyPrefix: 'APP-' });
    const plan = await engine.createPlan(account.id, product.id, { code: 'float', kind: 'perpetual', seatMode: 'floating', leaseSeconds: 900, maxActivations: 3 });
    const { license } = await engine.createLicense(account.id, { plan: plan.id, email: 'buyer@seats-trips.test' });
    const machine = { product: product.id, key: license.key, fingerprint: 'e'.repeat(64) };
    await engine.activate(machine);
    const quick = ['execute readClientLicense', 'query UPDATE activations + GUARD + COMMIT'];
    at += 300_000; // the SDK's schedule: a third of the lease
    expect(await engineTrips(() => createLicenseEngine(deps).validate(machine))).toEqual(quick);
    at += 10_000;
    expect(await engineTrips(() => engine.validate(machine))).toEqual(['execute readClientLicense']); // inside the resolution (60 s)
    at += 300_000;
    const renewed = engine.validate(machine);
    expect(await engineTrips(() => renewed)).toEqual(quick);
    expect((await renewed).lease!.leaseExpiresAt).toBe(new Date(at + 900_000).toISOString().replace('.000Z', 'Z'));
    // Less than 30 s of the lease left: renewed as a check-out would be, under the license row lock (and writing it).
    at += 880_000;
    const trips = await engineTrips(() => engine.validate(machine));
    expect(trips[0]).toBe('execute readClientLicense');
    expect(trips[1]).toBe('execute SELECT licenses FOR UPDATE');
    expect(trips[trips.length - 1]).toContain('UPDATE licenses');
});
});
