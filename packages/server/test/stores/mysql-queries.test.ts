import type { CustomerRecord, LicenseRecord } from '@svc-licensing/license-engine';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMySqlStore } from '../../src/stores/mysql/index.js';
import type { MySqlStore } from '../../src/stores/mysql/index.js';
import { createTestDatabase } from '../support/mysql-database.js';
import type { TestDatabase } from '../support/mysql-database.js';

// SQL-specific edges of the store port that the conformance suite does not reach: LIKE
// wildcards in a search, NULL in an equality filter, and filters on fields without a column.
let db: TestDatabase;
let store: MySqlStore;
beforeAll(async () => {
  db = await createTestDatabase('queries');
  store = createMySqlStore(db.url, { poolSize: 2 });
  await store.ready();
});
afterAll(async () => {
  await store.close();
  await db.drop();
});

const AT = '2030-01-01T00:00:00Z';
const customer = (id: string, email: string, name: string): CustomerRecord => ({ id, accountId: 'acc_q', email, name, createdAt: AT, updatedAt: AT });

describe('mysql store queries', () => {
  test('a search matches %, _ and ! literally, not as wildcards', async () => {
    await store.transaction(async (tx) => {
      await tx.insert('accounts', { id: 'acc_q' } as never);
      await tx.insert('customers', customer('cus_1', 'a@x.test', '100% Rust'));
      await tx.insert('customers', customer('cus_2', 'b@x.test', '100 percent'));
      await tx.insert('customers', customer('cus_3', 'snake_case@x.test', 'S'));
      await tx.insert('customers', customer('cus_4', 'snakeXcase@x.test', 'T'));
      await tx.insert('customers', customer('cus_5', 'bang@x.test', 'Hey!'));
    });
    const ids = (text: string) =>
      store.transaction(async (tx) =>
        (await tx.page('customers', { where: { accountId: 'acc_q' }, search: { text, fields: ['email', 'name'] }, limit: 50, order: 'asc' })).data.map((c) => c.id),
      );
    expect(await ids('0%')).toEqual(['cus_1']);
    expect(await ids('e_c')).toEqual(['cus_3']);
    expect(await ids('y!')).toEqual(['cus_5']);
    expect(await ids("' OR 1=1 --")).toEqual([]);
  });

  test('null in a filter matches records whose field is null', async () => {
    const license = (id: string, integrationId: string | null) =>
      ({ id, accountId: 'acc_q', productId: 'prd_q', planId: 'pln_q', customerId: 'cus_1', customerEmail: 'a@x.test', customerName: 'A', status: 'active', keyHash: `h_${id}`, integrationId, subscriptionId: null, orderId: null }) as unknown as LicenseRecord;
    await store.transaction(async (tx) => {
      await tx.insert('products', { id: 'prd_q', accountId: 'acc_q' } as never);
      await tx.insert('plans', { id: 'pln_q', accountId: 'acc_q', productId: 'prd_q', code: 'pro' } as never);
      await tx.insert('licenses', license('lic_1', null));
      await tx.insert('licenses', license('lic_2', 'int_1'));
    });
    const found = await store.transaction((tx) => tx.findMany('licenses', { accountId: 'acc_q', integrationId: null }));
    expect(found.map((l) => l.id)).toEqual(['lic_1']);
    expect(await store.transaction((tx) => tx.count('licenses', { integrationId: 'int_1' }))).toBe(1);
  });

  test('a filter on a field the schema does not index is refused with a clear error', async () => {
    await expect(store.transaction((tx) => tx.findMany('licenses', { seats: 1 } as never))).rejects.toThrow('licenses.seats is not an indexed field');
  });
});
