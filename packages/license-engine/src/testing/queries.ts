import { expect, it } from 'vitest';
import type { Collection, RecordMap } from '../_internal/records.js';
import type { Store, StoreTx } from '../_internal/store.js';
import { StoreConflictError, storeSchema } from '../_internal/store.js';
import { createSamples } from './records.js';

const COLLECTIONS = Object.keys(storeSchema) as Collection[];
const URL_SAFE = /^[A-Za-z0-9_-]+$/;

/** Reads, writes, filters and unique keys of every collection. */
export function queryCases(store: () => Store): void {
  const sample = createSamples();
  const run = <T>(work: (tx: StoreTx) => Promise<T>) => store().transaction(work);

  it('inserts, reads back, updates and deletes a record of every collection', async () => {
    for (const collection of COLLECTIONS) {
      const record = sample(collection);
      await run((tx) => tx.insert(collection, record));
      expect(await run((tx) => tx.get(collection, record.id)), collection).toEqual(record);
      const field = collection === 'accounts' ? 'name' : 'accountId';
      const changed = { ...record, [field]: 'changed' } as RecordMap[typeof collection];
      await run((tx) => tx.update(collection, changed));
      expect(await run((tx) => tx.get(collection, record.id)), collection).toEqual(changed);
      await run((tx) => tx.delete(collection, record.id));
      expect(await run((tx) => tx.get(collection, record.id)), collection).toBeNull();
    }
  });

  it('keeps the seat fields of floating plans and leased activations, and reads older records without them as written', async () => {
    const floating = sample('plans', { seatMode: 'floating', leaseSeconds: 120, maxBorrowDays: 365, maxBorrowedSeats: null });
    const machine = sample('plans', { seatMode: 'machine', leaseSeconds: null, maxBorrowDays: null, maxBorrowedSeats: null });
    const older = sample('plans');
    const leased = sample('activations', { leaseExpiresAt: '2030-01-01T00:15:00Z', borrowedUntil: '2030-01-08T00:00:00Z', lapseRecorded: null });
    const lapsed = sample('activations', { leaseExpiresAt: '2030-01-01T00:02:00Z', borrowedUntil: null, lapseRecorded: '2030-01-01T00:02:00Z' });
    await run(async (tx) => {
      for (const plan of [floating, machine, older]) await tx.insert('plans', plan);
      for (const activation of [leased, lapsed]) await tx.insert('activations', activation);
    });
    for (const record of [floating, machine, older]) expect(await run((tx) => tx.get('plans', record.id))).toEqual(record);
    expect(await run((tx) => tx.get('plans', older.id))).not.toHaveProperty('seatMode');
    for (const record of [leased, lapsed]) expect(await run((tx) => tx.get('activations', record.id))).toEqual(record);
    const renewed = { ...leased, leaseExpiresAt: '2030-01-08T00:00:00Z', borrowedUntil: null };
    await run((tx) => tx.update('activations', renewed));
    expect(await run((tx) => tx.findOne('activations', { licenseId: renewed.licenseId, fingerprint: renewed.fingerprint }))).toEqual(renewed);
  });

  compareAndSetCase(run, sample);

  it('returns null for a missing ID and deletes a missing record without error', async () => {
    expect(await run((tx) => tx.get('licenses', 'lic_missing'))).toBeNull();
    await expect(run((tx) => tx.delete('licenses', 'lic_missing'))).resolves.toBeUndefined();
  });

  it('copies records in and out: changing an object after insert or after read changes nothing stored', async () => {
    const license = sample('licenses');
    await run((tx) => tx.insert('licenses', license));
    license.status = 'revoked';
    (license.maxMajorOverride as { value: number }).value = 99;
    const read = await run((tx) => tx.get('licenses', license.id));
    expect(read?.status).toBe('active');
    expect(read?.maxMajorOverride).toEqual({ value: 3 });
    read!.seats = 40;
    expect((await run((tx) => tx.get('licenses', license.id)))?.seats).toBe(1);
  });

  it('findOne, findMany (oldest first) and count filter on indexed fields together', async () => {
    const a = sample('licenses', { productId: 'prd_x', status: 'active', customerEmail: 'same@example.test' });
    const b = sample('licenses', { productId: 'prd_x', status: 'revoked', customerEmail: 'same@example.test' });
    const c = sample('licenses', { productId: 'prd_y', status: 'active', customerEmail: 'same@example.test' });
    await run(async (tx) => {
      for (const r of [c, a, b]) await tx.insert('licenses', r);
    });
    expect(await run((tx) => tx.findOne('licenses', { keyHash: b.keyHash }))).toEqual(b);
    expect(await run((tx) => tx.findOne('licenses', { keyHash: 'nope' }))).toBeNull();
    expect((await run((tx) => tx.findMany('licenses', { customerEmail: 'same@example.test' }))).map((r) => r.id)).toEqual([a.id, b.id, c.id]);
    expect((await run((tx) => tx.findMany('licenses', { productId: 'prd_x', status: 'active' }))).map((r) => r.id)).toEqual([a.id]);
    expect(await run((tx) => tx.count('licenses', { customerEmail: 'same@example.test' }))).toBe(3);
    expect(await run((tx) => tx.count('licenses', { productId: 'prd_x', status: 'revoked' }))).toBe(1);
    expect(await run((tx) => tx.count('licenses', { productId: 'prd_none' }))).toBe(0);
  });

  it('filters every collection on each of its indexed fields (findMany, findOne, count)', async () => {
    const enums: Record<string, [string, string]> = {
      'signingKeys.status': ['pending', 'retired'],
      'licenses.status': ['active', 'revoked'],
      'integrations.provider': ['provider_a', 'provider_b'],
      'integrations.environment': ['sandbox', 'live'],
      'auditEvents.type': ['license.created', 'webhook.received'],
    };
    for (const collection of COLLECTIONS) {
      for (const field of storeSchema[collection].indexed as readonly string[]) {
        const [one, two] = enums[`${collection}.${field}`] ?? [`${field}-one`, `${field}-two`];
        const a = { ...sample(collection), [field]: one } as RecordMap[typeof collection];
        const b = { ...sample(collection), [field]: two } as RecordMap[typeof collection];
        await run(async (tx) => {
          await tx.insert(collection, a);
          await tx.insert(collection, b);
        });
        const where = { [field]: two } as Partial<RecordMap[typeof collection]>;
        const label = `${collection}.${field}`;
        expect((await run((tx) => tx.findMany(collection, where))).map((r) => r.id), label).toEqual([b.id]);
        expect((await run((tx) => tx.findOne(collection, where)))?.id, label).toBe(b.id);
        expect(await run((tx) => tx.count(collection, where)), label).toBe(1);
        await run(async (tx) => {
          await tx.delete(collection, a.id);
          await tx.delete(collection, b.id);
        });
      }
    }
  });
}

/** Paging, search and unique keys of every collection. */
export function pagingCases(store: () => Store): void {
  const sample = createSamples();
  const run = <T>(work: (tx: StoreTx) => Promise<T>) => store().transaction(work);

  it('pages newest first and oldest first with opaque URL-safe cursors, filtered by where', async () => {
    const mine = Array.from({ length: 7 }, () => sample('auditEvents', { accountId: 'acc_page' }));
    await run(async (tx) => {
      for (const r of mine) await tx.insert('auditEvents', r);
      await tx.insert('auditEvents', sample('auditEvents', { accountId: 'acc_other' }));
    });
    const walk = async (order: 'asc' | 'desc') => {
      const ids: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = await run((tx) => tx.page('auditEvents', { where: { accountId: 'acc_page' }, cursor, limit: 3, order }));
        expect(page.data.length).toBeLessThanOrEqual(3);
        if (page.nextCursor !== null) expect(page.nextCursor).toMatch(URL_SAFE);
        ids.push(...page.data.map((r) => r.id));
        cursor = page.nextCursor;
        pages++;
      } while (cursor !== null);
      return { ids, pages };
    };
    const ascending = mine.map((r) => r.id);
    expect(await walk('desc')).toEqual({ ids: [...ascending].reverse(), pages: 3 });
    expect(await walk('asc')).toEqual({ ids: ascending, pages: 3 });
    const exact = await run((tx) => tx.page('auditEvents', { where: { accountId: 'acc_page' }, limit: 7, order: 'desc' }));
    expect(exact.nextCursor).toBeNull();
    const empty = await run((tx) => tx.page('auditEvents', { where: { accountId: 'acc_none' }, limit: 50, order: 'desc' }));
    expect(empty).toEqual({ data: [], nextCursor: null });
  });

  it('searches case-insensitively for part of any listed field, together with where and cursor', async () => {
    const rows = [
      sample('customers', { accountId: 'acc_q', email: 'alice@shop.test', name: 'Alice Martin' }),
      sample('customers', { accountId: 'acc_q', email: 'bob@martinez.test', name: 'Bob' }),
      sample('customers', { accountId: 'acc_q', email: 'carol@shop.test', name: 'Carol' }),
      sample('customers', { accountId: 'acc_other', email: 'martin@shop.test', name: 'Martin' }),
    ];
    await run(async (tx) => {
      for (const r of rows) await tx.insert('customers', r);
    });
    const search = { text: 'MARTIN', fields: ['email', 'name'] as const };
    const first = await run((tx) => tx.page('customers', { where: { accountId: 'acc_q' }, search, limit: 1, order: 'desc' }));
    expect(first.data.map((r) => r.id)).toEqual([rows[1]!.id]);
    const second = await run((tx) => tx.page('customers', { where: { accountId: 'acc_q' }, search, cursor: first.nextCursor, limit: 1, order: 'desc' }));
    expect(second.data.map((r) => r.id)).toEqual([rows[0]!.id]);
    expect(second.nextCursor).toBeNull();
    const licenses = [
      sample('licenses', { accountId: 'acc_q', customerEmail: 'x@y.test', customerName: 'Zoë Ångström' }),
      sample('licenses', { accountId: 'acc_q', customerEmail: 'someone@ANGSTROM.test', customerName: 'S' }),
    ];
    await run(async (tx) => {
      for (const r of licenses) await tx.insert('licenses', r);
    });
    const found = await run((tx) =>
      tx.page('licenses', { where: { accountId: 'acc_q' }, search: { text: 'angstrom', fields: ['customerEmail', 'customerName'] }, limit: 50, order: 'asc' }),
    );
    expect(found.data.map((r) => r.id)).toEqual([licenses[1]!.id]);
    const special = await run((tx) =>
      tx.page('licenses', { where: { accountId: 'acc_q' }, search: { text: '%', fields: ['customerEmail', 'customerName'] }, limit: 50, order: 'asc' }),
    );
    expect(special.data).toEqual([]);
  });

  it('rejects a duplicate ID and a clash on every unique key of storeSchema with StoreConflictError, on insert and update', async () => {
    const license = sample('licenses');
    await run((tx) => tx.insert('licenses', license));
    const dupId = await run((tx) => tx.insert('licenses', { ...sample('licenses'), id: license.id })).catch((e: unknown) => e);
    expect(StoreConflictError.is(dupId)).toBe(true);
    for (const collection of COLLECTIONS) {
      for (const key of storeSchema[collection].unique) {
        const first = sample(collection);
        const second = sample(collection);
        const clashing = { ...second } as Record<string, unknown>;
        for (const field of key) clashing[field] = (first as unknown as Record<string, unknown>)[field];
        await run((tx) => tx.insert(collection, first));
        const onInsert = await run((tx) => tx.insert(collection, clashing as unknown as RecordMap[typeof collection])).catch((e: unknown) => e);
        expect(StoreConflictError.is(onInsert), `${collection} ${key.join(',')} insert`).toBe(true);
        await run((tx) => tx.insert(collection, second));
        const onUpdate = await run((tx) => tx.update(collection, clashing as unknown as RecordMap[typeof collection])).catch((e: unknown) => e);
        expect(StoreConflictError.is(onUpdate), `${collection} ${key.join(',')} update`).toBe(true);
        expect(await run((tx) => tx.get(collection, second.id))).toEqual(second);
      }
    }
  });
}

/** `updateIfUnchanged` (optional in the port): writes only over the record as read. */
function compareAndSetCase(run: <T>(work: (tx: StoreTx) => Promise<T>) => Promise<T>, sample: ReturnType<typeof createSamples>): void {
  it('updateIfUnchanged writes only over the record as read: a changed or deleted one fails the unit with a conflict and keeps nothing', async () => {
    if (!(await run(async (tx) => tx.updateIfUnchanged !== undefined))) return; // optional in the port
    const read = sample('activations', { leaseExpiresAt: '2030-01-01T00:15:00Z', borrowedUntil: null, lapseRecorded: null });
    await run((tx) => tx.insert('activations', read));
    const renew = (tx: StoreTx, expected: RecordMap['activations'], leaseExpiresAt: string) =>
      tx.updateIfUnchanged!('activations', expected, { ...expected, leaseExpiresAt });
    await run((tx) => renew(tx, read, '2030-01-01T00:30:00Z'));
    const renewed = { ...read, leaseExpiresAt: '2030-01-01T00:30:00Z' };
    expect(await run((tx) => tx.get('activations', read.id))).toEqual(renewed);
    const other = sample('licenses');
    const stale = run(async (tx) => {
      await tx.insert('licenses', other);
      await renew(tx, read, '2030-01-01T00:45:00Z');
    });
    await expect(stale).rejects.toMatchObject({ code: 'store_conflict', collection: 'activations', index: 'unchanged' });
    expect(await run((tx) => tx.get('activations', read.id))).toEqual(renewed);
    expect(await run((tx) => tx.get('licenses', other.id))).toBeNull();
    await run((tx) => tx.delete('activations', read.id));
    await expect(run((tx) => renew(tx, renewed, '2030-01-01T01:00:00Z'))).rejects.toMatchObject({ code: 'store_conflict', index: 'unchanged' });
    expect(await run((tx) => tx.get('activations', read.id))).toBeNull();
  });
}
