import { expect, it } from 'vitest';
import type { Store, StoreTx } from '../_internal/store.js';
import { StoreConflictError } from '../_internal/store.js';
import { lockOrInsert } from '../_internal/claim.js';
import { createSamples } from './records.js';

/** Joined reads, reads asked for together, and read-your-writes inside a unit. */
export function readCases(store: () => Store): void {
  const sample = createSamples();
  const run = <T>(work: (tx: StoreTx) => Promise<T>) => store().transaction(work);

  it('readProviderCustomer, where the store has it, returns exactly what the two separate reads find', async () => {
    // E-mails a JSON document escapes or that differ only in case or accent must match exactly.
    const emails = ['plain@example.test', 'o"brien+tag@example.test', 'zoë@example.test', 'ZOË@example.test', 'back\\slash@example.test'];
    const mappings = emails.map((email, i) => sample('providerCustomers', { integrationId: 'int_prc', providerCustomerId: `ctm_prc_${i}`, email }));
    // The customers of all but the last address, in account acc_a; a customer with the same address in another account.
    const customers = emails.slice(0, -1).map((email) => sample('customers', { accountId: 'acc_a', email }));
    const elsewhere = sample('customers', { accountId: 'acc_b', email: emails[emails.length - 1]! });
    await run(async (tx) => {
      for (const m of mappings) await tx.insert('providerCustomers', m);
      for (const c of [...customers, elsewhere]) await tx.insert('customers', c);
    });
    const queries = [
      ...mappings.map((m) => ({ integrationId: 'int_prc', providerCustomerId: m.providerCustomerId, accountId: 'acc_a' })),
      { integrationId: 'int_prc', providerCustomerId: 'ctm_prc_missing', accountId: 'acc_a' },
      { integrationId: 'int_other', providerCustomerId: mappings[0]!.providerCustomerId, accountId: 'acc_a' },
    ];
    const compared = await run(async (tx) => {
      if (!tx.readProviderCustomer) return null;
      const answers = [];
      for (const q of queries) {
        const mapping = await tx.findOne('providerCustomers', { integrationId: q.integrationId, providerCustomerId: q.providerCustomerId });
        const customer = mapping ? await tx.findOne('customers', { accountId: q.accountId, email: mapping.email }) : null;
        expect(await tx.readProviderCustomer(q)).toEqual({ mapping, customer });
        answers.push(customer?.id ?? null);
      }
      return answers;
    });
    if (compared === null) return;
    expect(compared).toEqual([...customers.map((c) => c.id), null, null, null]);
  });

  it('reads asked for together (Promise.all) each get their own answer, held writes included', async () => {
    const license = sample('licenses', { productId: 'prd_together' });
    const customer = sample('customers');
    await run((tx) => tx.insert('customers', customer));
    const answers = await run(async (tx) => {
      await tx.insert('licenses', license, { defer: true });
      return Promise.all([
        tx.get('customers', customer.id),
        tx.get('licenses', license.id),
        tx.findMany('licenses', { productId: 'prd_together' }),
        tx.count('licenses', { productId: 'prd_together' }),
        tx.get('customers', 'cus_missing'),
      ]);
    });
    expect(answers).toEqual([customer, license, [license], 1, null]);
    const readOnly = await store().transaction((tx) => Promise.all([tx.get('licenses', license.id), tx.get('customers', customer.id)]), { readOnly: true });
    expect(readOnly).toEqual([license, customer]);
  });

  it('sees its own writes inside the transaction (get, findOne, findMany, count, page)', async () => {
    const license = sample('licenses', { productId: 'prd_own' });
    await run(async (tx) => {
      await tx.insert('licenses', license);
      expect(await tx.get('licenses', license.id)).toEqual(license);
      expect(await tx.findOne('licenses', { keyHash: license.keyHash })).toEqual(license);
      expect(await tx.findMany('licenses', { productId: 'prd_own' })).toEqual([license]);
      expect(await tx.count('licenses', { productId: 'prd_own' })).toBe(1);
      expect((await tx.page('licenses', { where: { productId: 'prd_own' }, limit: 50, order: 'desc' })).data).toEqual([license]);
      await tx.update('licenses', { ...license, seats: 9 });
      expect((await tx.get('licenses', license.id))?.seats).toBe(9);
      await tx.delete('licenses', license.id);
      expect(await tx.get('licenses', license.id)).toBeNull();
      expect(await tx.count('licenses', { productId: 'prd_own' })).toBe(0);
    });
  });
}

/** Locking, concurrent first uses, and paging while other transactions insert. */
export function concurrencyCases(store: () => Store): void {
  const sample = createSamples();
  const run = <T>(work: (tx: StoreTx) => Promise<T>) => store().transaction(work);

  it('serializes read-modify-write of a locked record: 20 concurrent increments lose none', async () => {
    const counter = sample('counters', { count: 0 });
    await run((tx) => tx.insert('counters', counter));
    await Promise.all(
      Array.from({ length: 20 }, () =>
        run(async (tx) => {
          const current = await tx.get('counters', counter.id, { lock: true });
          await new Promise((resolve) => setTimeout(resolve, 1));
          await tx.update('counters', { ...current!, count: current!.count + 1 });
        }),
      ),
    );
    expect((await run((tx) => tx.get('counters', counter.id)))?.count).toBe(20);
  });

  it('a rejected insert writes nothing and the unit of work goes on: its other writes commit', async () => {
    const first = sample('processedEvents');
    await run((tx) => tx.insert('processedEvents', first));
    const clash = { ...sample('processedEvents'), integrationId: first.integrationId, eventId: first.eventId };
    const other = sample('counters', { count: 1 });
    const outcome = await run(async (tx) => {
      const rejected = await tx.insert('processedEvents', clash).catch((e: unknown) => e);
      await tx.insert('counters', other);
      return StoreConflictError.is(rejected);
    });
    expect(outcome).toBe(true);
    expect(await run((tx) => tx.get('processedEvents', clash.id))).toBeNull();
    expect(await run((tx) => tx.get('counters', other.id))).toEqual(other);
  });

  it('20 concurrent first uses of a missing record (insert, else lock the winner) create it once and lose no count', async () => {
    const id = sample('counters').id;
    await Promise.all(
      Array.from({ length: 20 }, () =>
        run(async (tx) => {
          const current = await lockOrInsert(
            (lock) => tx.get('counters', id, lock),
            () => tx.insert('counters', { ...sample('counters', { count: 1 }), id }),
          );
          await new Promise((resolve) => setTimeout(resolve, 1));
          if (current) await tx.update('counters', { ...current, count: current.count + 1 });
        }),
      ),
    );
    expect((await run((tx) => tx.get('counters', id)))?.count).toBe(20);
  });

  it('pages newest first without duplicates or gaps while other transactions insert', async () => {
    const before = Array.from({ length: 12 }, () => sample('auditEvents', { accountId: 'acc_live' }));
    await run(async (tx) => {
      for (const r of before) await tx.insert('auditEvents', r);
    });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await run((tx) => tx.page('auditEvents', { where: { accountId: 'acc_live' }, cursor, limit: 5, order: 'desc' }));
      seen.push(...page.data.map((r) => r.id));
      cursor = page.nextCursor;
      // Newer records arrive between pages, concurrently with each other.
      await Promise.all(
        Array.from({ length: 3 }, () => run((tx) => tx.insert('auditEvents', sample('auditEvents', { accountId: 'acc_live' })))),
      );
    } while (cursor !== null);
    expect(seen).toEqual(before.map((r) => r.id).reverse());
  });

  it('a cursor stays valid when the record it points after is deleted', async () => {
    const rows = Array.from({ length: 6 }, () => sample('customers', { accountId: 'acc_del' }));
    await run(async (tx) => {
      for (const r of rows) await tx.insert('customers', r);
    });
    const first = await run((tx) => tx.page('customers', { where: { accountId: 'acc_del' }, limit: 3, order: 'desc' }));
    await run((tx) => tx.delete('customers', first.data[2]!.id));
    const second = await run((tx) => tx.page('customers', { where: { accountId: 'acc_del' }, cursor: first.nextCursor, limit: 3, order: 'desc' }));
    expect(second.data.map((r) => r.id)).toEqual(rows.slice(0, 3).map((r) => r.id).reverse());
  });

  it('pages oldest first without duplicates or gaps while other transactions insert; new records come last', async () => {
    const before = Array.from({ length: 6 }, () => sample('signingKeys', { productId: 'prd_live' }));
    await run(async (tx) => {
      for (const r of before) await tx.insert('signingKeys', r);
    });
    const seen: string[] = [];
    const added: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await run((tx) => tx.page('signingKeys', { where: { productId: 'prd_live' }, cursor, limit: 4, order: 'asc' }));
      seen.push(...page.data.map((r) => r.id));
      cursor = page.nextCursor;
      if (cursor !== null && added.length < 4) {
        const extra = [sample('signingKeys', { productId: 'prd_live' }), sample('signingKeys', { productId: 'prd_live' })];
        await Promise.all(extra.map((r) => run((tx) => tx.insert('signingKeys', r))));
        added.push(...extra.map((r) => r.id));
      }
    } while (cursor !== null);
    expect(seen).toEqual([...before.map((r) => r.id), ...added]);
  });
}
