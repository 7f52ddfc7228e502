import { beforeEach, describe, expect, it } from 'vitest';
import type { Catalog, TestEngine } from './fixtures.js';
import { codeOf, createCatalog, createTestEngine, DAY, paid, refusedCode } from './fixtures.js';

let t: TestEngine;
let c: Catalog;

beforeEach(async () => {
  t = createTestEngine();
  c = await createCatalog(t);
});

const MINUTE = 60_000;
const list = async (integrationId = c.providerB.id) => (await t.engine.listIncomingDeliveries(c.account.id, integrationId)).data;
const mismatch = (integrationId: string, more: object = {}) => ({
  integrationId, status: 401, result: 'refused' as const, reason: 'signature_mismatch' as const, message: 'The X-Signature signature does not match', ...more,
});

describe('the incoming delivery log', () => {
  it('groups alike deliveries of one minute into one row with their count; another minute, reason or event starts a row', async () => {
    const at = t.clock.now();
    await t.engine.recordIncomingDeliveries([mismatch(c.providerB.id), mismatch(c.providerB.id, { count: 4 })]);
    await t.engine.recordIncomingDeliveries([mismatch(c.providerB.id, { at: at + 20_000 })]);
    const [row, ...others] = await list();
    expect(others).toEqual([]);
    expect(row).toMatchObject({
      integration: c.providerB.id, result: 'refused', status: 401, reason: 'signature_mismatch', count: 6, eventType: null, eventId: null,
      message: 'The X-Signature signature does not match',
    });
    expect(row!.lastAt > row!.firstAt).toBe(true);

    t.clock.advance(MINUTE);
    await t.engine.recordIncomingDeliveries([
      mismatch(c.providerB.id), // the next minute
      mismatch(c.providerB.id, { reason: 'timestamp_out_of_range', message: 'too old' }),
      { integrationId: c.providerB.id, status: 200, result: 'duplicate', message: 'already processed', eventType: 'order_created', eventId: 'evt_1' },
      { integrationId: c.providerB.id, status: 200, result: 'duplicate', message: 'already processed', eventType: 'order_created', eventId: 'evt_2' },
    ]);
    const rows = await list();
    expect(rows.map((r) => [r.reason ?? r.eventId, r.count])).toEqual([
      ['evt_2', 1], ['evt_1', 1], ['timestamp_out_of_range', 1], ['signature_mismatch', 1], ['signature_mismatch', 6],
    ]);
    // Each integration keeps its own log.
    expect(await list(c.providerA.id)).toEqual([]);
  });

  it('drops deliveries to an integration that does not exist, and lists only the caller\'s integrations', async () => {
    await t.engine.recordIncomingDeliveries([mismatch('int_missing'), mismatch(c.providerA.id)]);
    expect((await list(c.providerA.id)).map((r) => r.count)).toEqual([1]);
    const other = await t.engine.createAccount({ name: 'Other', ownerEmail: 'owner@other.test' });
    expect(await codeOf(t.engine.listIncomingDeliveries(other.account.id, c.providerA.id))).toBe('not_found');
    expect(await codeOf(t.engine.recordIncomingDeliveries([{ ...mismatch(c.providerA.id), reason: 'bored' as never }]))).toBe('invalid_request');
  });

  it('logs a processed event in its own unit, and nothing when the event was refused (its unit rolled back)', async () => {
    const event = paid({ paidUntil: '2030-02-15T10:00:00Z', occurredAt: '2030-01-15T09:00:00Z' });
    expect((await t.engine.applyPaymentCommand(c.providerB.id, event)).result).toBe('processed');
    const [row] = await list();
    expect(row).toMatchObject({ result: 'processed', status: 200, reason: null, eventType: event.eventType, eventId: event.eventId, count: 1 });
    expect(row!.message).toContain('license');

    await t.engine.revokeLicense(c.account.id, (await t.engine.listLicenses(c.account.id)).data[0]!.id);
    const later = paid({ paidUntil: '2030-03-15T10:00:00Z', occurredAt: '2030-02-15T09:00:00Z' });
    expect(await refusedCode(t.engine.applyPaymentCommand(c.providerB.id, later))).toBe('conflict');
    expect(await list()).toHaveLength(1);
  });

  it('pages newest first, 50 a page', async () => {
    for (let i = 0; i < 55; i++) {
      t.clock.advance(MINUTE);
      await t.engine.recordIncomingDeliveries([mismatch(c.providerB.id)]);
    }
    const first = await t.engine.listIncomingDeliveries(c.account.id, c.providerB.id);
    expect(first.data).toHaveLength(50);
    const second = await t.engine.listIncomingDeliveries(c.account.id, c.providerB.id, { cursor: first.nextCursor });
    expect(second.data).toHaveLength(5);
    expect(second.nextCursor).toBeNull();
    expect(first.data[0]!.firstAt > second.data[4]!.firstAt).toBe(true);
  });

  it('is purged 30 days after a row\'s last delivery', async () => {
    await t.engine.recordIncomingDeliveries([mismatch(c.providerB.id)]);
    t.clock.advance(29 * DAY);
    await t.engine.recordIncomingDeliveries([mismatch(c.providerB.id)]);
    t.clock.advance(DAY + MINUTE);
    expect(await t.engine.purgeOldIncomingDeliveries()).toEqual({ deleted: 1 });
    expect((await list()).map((r) => r.count)).toEqual([1]);
  });
});
