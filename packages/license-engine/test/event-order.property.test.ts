import fc from 'fast-check';
import { expect, it } from 'vitest';
import { changed, createCatalog, createTestEngine, paid } from './fixtures.js';

const STATUSES = ['active', 'past_due', 'canceled', 'suspended', 'expired'] as const;

/** An instant in January 2030 written with a random offset and fraction length, and its UTC microseconds. */
const instant = fc
  .record({
    micros: fc.bigInt({ min: 0n, max: 86_400_000_000n * 30n }),
    offsetMinutes: fc.constantFrom(0, 60, -90, 330),
    digits: fc.integer({ min: 0, max: 6 }),
  })
  .map(({ micros, offsetMinutes, digits }) => {
    const unit = 10n ** BigInt(6 - digits);
    const exact = (micros / unit) * unit; // only as precise as the digits written
    const utcMs = Date.parse('2030-01-01T00:00:00Z') + Number(exact / 1000n);
    const local = new Date(utcMs + offsetMinutes * 60_000).toISOString().slice(0, 19);
    const fraction = digits === 0 ? '' : `.${String(exact % 1_000_000n).padStart(6, '0').slice(0, digits)}`;
    const sign = offsetMinutes < 0 ? '-' : '+';
    const abs = Math.abs(offsetMinutes);
    const zone = offsetMinutes === 0 ? 'Z' : `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
    return { text: `${local}${fraction}${zone}`, exact };
  });

it('whatever order status events arrive in, the license ends in the status of the newest one (rule 1)', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.uniqueArray(fc.record({ at: instant, status: fc.constantFrom(...STATUSES) }), { minLength: 1, maxLength: 6, selector: (e) => e.at.exact }),
      fc.func(fc.integer()),
      async (events, shuffleKey) => {
        const t = createTestEngine();
        const c = await createCatalog(t);
        const first = await t.engine.applyPaymentCommand(c.providerB.id, paid({ occurredAt: '2029-12-31T00:00:00Z', paidUntil: '2030-03-01T00:00:00Z' }));
        const commands = events.map((e) => changed({ status: e.status, occurredAt: e.at.text }));
        const order = commands.map((cmd, i) => ({ cmd, k: shuffleKey(i) })).sort((a, b) => a.k - b.k);
        for (const { cmd } of order) await t.engine.applyPaymentCommand(c.providerB.id, cmd);
        const newest = events.reduce((a, b) => (b.at.exact > a.at.exact ? b : a));
        expect((await t.engine.getLicense(c.account.id, first.licenseId!)).status).toBe(newest.status);
      },
    ),
    { numRuns: 60 },
  );
});
