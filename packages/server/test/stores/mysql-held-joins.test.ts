import type { Collection } from '@svc-licensing/license-engine';
import { describe, expect, test } from 'vitest';
import type { HeldWrite } from '../../src/stores/mysql/held.js';
import { foreignKeyParents, joinHeld } from '../../src/stores/mysql/held-merge.js';

// Which held writes go as one statement (src/stores/mysql/held-merge.ts): what MariaDB parses and
// plans per event, without changing which rows are written or letting a child row precede its parent.

const insert = (collection: Collection, table: string, id: string): HeldWrite => {
  const head = `INSERT INTO \`${table}\` (\`id\`, \`doc\`)`;
  return { sql: `${head} VALUES (?, ?)`, values: [id, `{"id":"${id}"}`], collection, joinable: { kind: 'insert', head } };
};
const remove = (collection: Collection, table: string, id: string): HeldWrite => {
  const head = `DELETE FROM \`${table}\` WHERE \`id\``;
  return { sql: `${head} = ?`, values: [id], collection, joinable: { kind: 'delete', head } };
};
const update = (collection: Collection, table: string, id: string): HeldWrite => ({
  sql: `UPDATE \`${table}\` SET \`doc\` = ? WHERE \`id\` = ?`,
  values: ['{}', id],
  collection,
  mustMatch: `no ${collection} record ${id} to update`,
});

describe('held writes joined in one statement', () => {
  test('the foreign keys are read off the migrations', () => {
    expect([...foreignKeyParents.get('licenses')!].sort()).toEqual(['accounts', 'customers', 'plans', 'products']);
    expect([...foreignKeyParents.get('audit_events')!]).toEqual(['accounts']);
    expect(foreignKeyParents.get('accounts')!.size).toBe(0);
  });

  test('a purchase\'s two audit events go as one multi-row INSERT where the first was held', () => {
    const joined = joinHeld([
      insert('licenses', 'licenses', 'lic_1'),
      insert('auditEvents', 'audit_events', 'evt_1'),
      insert('emailReservations', 'email_reservations', 'lic_1'),
      update('processedEvents', 'processed_events', 'pev_1'),
      insert('auditEvents', 'audit_events', 'evt_2'),
      insert('incomingDeliveries', 'incoming_deliveries', 'rcv_1'),
    ]);
    expect(joined.map((w) => w.sql.replace(/ \(`id`, `doc`\)/, ''))).toEqual([
      'INSERT INTO `licenses` VALUES (?, ?)',
      'INSERT INTO `audit_events` VALUES (?, ?), (?, ?)',
      'INSERT INTO `email_reservations` VALUES (?, ?)',
      'UPDATE `processed_events` SET `doc` = ? WHERE `id` = ?',
      'INSERT INTO `incoming_deliveries` VALUES (?, ?)',
    ]);
    expect(joined[1]!.values).toEqual(['evt_1', '{"id":"evt_1"}', 'evt_2', '{"id":"evt_2"}']);
    expect(joined[3]!.mustMatch).toBe('no processedEvents record pev_1 to update');
  });

  test('an insert does not move before a write of a table it references, nor past a write of its own table', () => {
    const overParent = [insert('licenses', 'licenses', 'lic_1'), insert('customers', 'customers', 'cus_2'), insert('licenses', 'licenses', 'lic_2')];
    expect(joinHeld(overParent).map((w) => w.sql)).toEqual(overParent.map((w) => w.sql));
    const overUpdate = [insert('counters', 'counters', 'a'), update('counters', 'counters', 'b'), insert('counters', 'counters', 'c')];
    expect(joinHeld(overUpdate)).toEqual(overUpdate);
  });

  test('consecutive deletes of one table go as one DELETE ... IN, others stay apart', () => {
    const joined = joinHeld([
      remove('emailReservations', 'email_reservations', 'lic_1'),
      remove('emailReservations', 'email_reservations', 'lic_2'),
      remove('emailReservations', 'email_reservations', 'lic_3'),
      insert('auditEvents', 'audit_events', 'evt_1'),
      remove('emailReservations', 'email_reservations', 'lic_4'),
    ]);
    expect(joined.map((w) => w.sql.replace(/ \(`id`, `doc`\)/, ''))).toEqual([
      'DELETE FROM `email_reservations` WHERE `id` IN (?, ?, ?)',
      'INSERT INTO `audit_events` VALUES (?, ?)',
      'DELETE FROM `email_reservations` WHERE `id` = ?',
    ]);
    expect(joined[0]!.values).toEqual(['lic_1', 'lic_2', 'lic_3']);
  });
});
