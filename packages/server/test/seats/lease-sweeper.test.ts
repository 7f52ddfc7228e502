import { expect, it } from 'vitest';
import { startLeaseSweeper } from '../../src/lease-sweeper.js';
import { fingerprint, licensed } from '../support/fixtures.js';
import { createHarness, describeEveryStore, type Harness } from '../support/harness.js';

// The optional sweeper (docs/floating-seats.md, "The sweeper"): it records lease.expired for lapses
// nobody's call recorded, on any instance, once each; no count or seat depends on it.
const OPEN = { limits: { clientPerIp: 1_000_000, clientPerKeyAndIp: 1_000_000 } };
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The seats of a license as the vendor API shows them: what the sweeper must never change. */
async function seats(h: Harness, licenseId: string) {
  const view = (await h.api('GET', `/licenses/${licenseId}`)).body;
  return {
    liveLeases: view.liveLeases, activationCount: view.activationCount,
    activations: view.activations.map((a: any) => [a.fingerprint, a.leaseState, a.leaseExpiresAt]),
  };
}
async function expiredEvents(h: Harness, licenseId: string) {
  const events = (await h.api('GET', `/events?license=${licenseId}`)).body.data;
  return events.filter((e: any) => e.type === 'lease.expired').map((e: any) => [e.data.fingerprint, e.data.leaseExpiresAt]).sort();
}

describeEveryStore('floating seats: the lease sweeper', (setup) => {
  it('two sweeps racing on two instances record each lapse once, change no count, and a later check-out records none again', async () => {
    const h = await createHarness({ mode: 'node-server', store: setup.store }, OPEN, { peer: true });
    const plan = { code: 'team', seatMode: 'floating', maxActivations: 4, leaseSeconds: 120 };
    const a = await licensed(h, {}, plan);
    const b = await licensed(h, {}, { ...plan, code: 'team-b' });
    const call = (made: typeof a, action: 'activate' | 'validate', n: number) =>
      h.client(action, { product: made.product.id, key: made.license.key, fingerprint: fingerprint(made.product.id, n) });
    const start = h.clock.now();
    for (const n of [1, 2, 3]) expect((await call(a, 'activate', n)).status).toBe(200);
    for (const n of [1, 2]) expect((await call(b, 'activate', n)).status).toBe(200);
    h.clock.set(iso(start + 60_000));
    expect((await call(a, 'activate', 4)).status).toBe(200); // still live when the others have lapsed
    h.clock.set(iso(start + 125_000));
    const before = [await seats(h, a.license.id), await seats(h, b.license.id)];
    expect(before[0]!.liveLeases).toBe(1);

    const [one, two] = await Promise.all([h.engine.sweepLapsedLeases(), h.peer!.engine.sweepLapsedLeases()]);
    expect(one.recorded + two.recorded).toBe(5);
    const end = iso(start + 120_000);
    expect(await expiredEvents(h, a.license.id)).toEqual([1, 2, 3].map((n) => [fingerprint(a.product.id, n), end]).sort());
    expect(await expiredEvents(h, b.license.id)).toEqual([1, 2].map((n) => [fingerprint(b.product.id, n), end]).sort());
    expect([await seats(h, a.license.id), await seats(h, b.license.id)]).toEqual(before);

    expect((await h.engine.sweepLapsedLeases()).recorded).toBe(0);
    // The lapsed machine checks out again: its lapse was recorded by the sweep, so not twice.
    expect((await call(a, 'validate', 1)).status).toBe(200);
    expect(await expiredEvents(h, a.license.id)).toHaveLength(3);
    expect((await seats(h, a.license.id)).liveLeases).toBe(2);
  });

  it('the server job sweeps until stopped; stopped, lapses wait for the next call and every count and check-out is the same', async () => {
    const h = await createHarness(setup, OPEN);
    const made = await licensed(h, {}, { code: 'team', seatMode: 'floating', maxActivations: 1, leaseSeconds: 120 });
    const call = (action: 'activate' | 'validate', n: number) =>
      h.client(action, { product: made.product.id, key: made.license.key, fingerprint: fingerprint(made.product.id, n) });
    const start = h.clock.now();
    await call('activate', 1);
    h.clock.set(iso(start + 125_000));
    const swept: number[] = [];
    const job = startLeaseSweeper({ engine: h.engine, intervalMs: 3_600_000, onSwept: (r) => swept.push(r.recorded) });
    await job.running();
    await job.stop();
    expect(swept).toEqual([1]);
    expect(await expiredEvents(h, made.license.id)).toEqual([[fingerprint(made.product.id, 1), iso(start + 120_000)]]);

    // Machine 2 takes the seat, then lapses with the sweeper stopped: nothing records it yet, and
    // the seat is free at its lease end + 5 s all the same.
    expect((await call('activate', 2)).status).toBe(200);
    h.clock.set(iso(start + 125_000 + 124_000));
    expect((await call('activate', 1)).body.error.code).toBe('activation_limit');
    h.clock.set(iso(start + 125_000 + 125_000));
    expect(await seats(h, made.license.id)).toMatchObject({ liveLeases: 0, activationCount: 2 });
    expect(await expiredEvents(h, made.license.id)).toHaveLength(1);
    expect((await call('activate', 1)).status).toBe(200);
    expect(await expiredEvents(h, made.license.id)).toEqual([
      [fingerprint(made.product.id, 1), iso(start + 120_000)], [fingerprint(made.product.id, 2), iso(start + 245_000)],
    ].sort());
  });
});
