import { expect, it } from 'vitest';
import type { Store } from '../_internal/store.js';
import { NOW, setup } from './engine-cases.js';

/** The incoming delivery log: groups recorded at once, by any number of units, lose no count. */
export function incomingCases(store: () => Store): void {
  it('20 units adding to one group of incoming deliveries at once make one row that counts them all', async () => {
    const { engine, account, integration } = await setup(store());
    const refused = { integrationId: integration.id, status: 401, result: 'refused' as const, reason: 'signature_mismatch' as const, message: 'no match' };
    const other = { ...refused, reason: 'missing_header' as const };
    await Promise.all(Array.from({ length: 20 }, (_, i) => engine.recordIncomingDeliveries(i % 5 === 0 ? [refused, other] : [refused])));
    const rows = (await engine.listIncomingDeliveries(account.id, integration.id)).data;
    expect(rows.map((r) => [r.reason, r.count]).sort()).toEqual([['missing_header', 4], ['signature_mismatch', 20]]);
    expect(rows.every((r) => r.firstAt === new Date(NOW).toISOString().replace('.000Z', 'Z'))).toBe(true);
  });

  it("an event whose log row of this minute is already stored is processed, and counts in that row", async () => {
    // The event's own log row exists before its unit commits (logged by the host, or left by an
    // attempt of the unit that did not keep its claim): the unit's insert of it clashes, and the
    // rerun must join the row instead of clashing again until the event is refused `conflict`.
    const { engine, account, integration } = await setup(store());
    const event = { eventId: 'evt_logged', eventType: 'customer.created' };
    await engine.recordIncomingDeliveries([{ integrationId: integration.id, status: 200, result: 'processed', message: 'logged first', ...event }]);
    const applied = await engine.applyPaymentCommand(integration.id, {
      kind: 'customer_upserted',
      provider: 'provider_b',
      ...event,
      occurredAt: '2030-03-01T11:59:00Z',
      customer: { providerCustomerId: 'cus_logged', email: 'logged@conformance.test', name: null },
    });
    expect(applied).toMatchObject({ result: 'processed' });
    const rows = (await engine.listIncomingDeliveries(account.id, integration.id)).data;
    expect(rows.map((r) => [r.result, r.eventId, r.count])).toEqual([['processed', 'evt_logged', 2]]);
    expect((await engine.listCustomers(account.id)).data.map((c) => c.email)).toEqual(['logged@conformance.test']);
  });
}
