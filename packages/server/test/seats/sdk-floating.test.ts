import { createLicenseClient, createMemoryStorage, type HeartbeatTimers } from '@svc-licensing/verifier';
import { expect, it } from 'vitest';
import { licensed } from '../support/fixtures.js';
import { createHarness, describeEveryStore, type Harness } from '../support/harness.js';

/** Timers the test fires by hand, on the harness's fake clock. */
function manualTimers(h: Harness) {
  const pending: { at: number; run: () => void; id: number }[] = [];
  let next = 1;
  const timers: HeartbeatTimers = {
    setTimeout(run, ms) {
      const id = next++;
      pending.push({ at: h.clock.now() + ms, run, id });
      return id;
    },
    clearTimeout(handle) {
      const i = pending.findIndex((p) => p.id === handle);
      if (i >= 0) pending.splice(i, 1);
    },
  };
  /** Moves the clocks to the next timer and runs it; answers its delay, or null when none is set. */
  const fireNext = (): number | null => {
    pending.sort((a, b) => a.at - b.at);
    const due = pending.shift();
    if (!due) return null;
    const delay = due.at - h.clock.now();
    h.clock.set(new Date(due.at).toISOString());
    due.run();
    return delay;
  };
  return { timers, fireNext, pending };
}

describeEveryStore('the client SDK on a floating plan against the server', (setup) => {
  it('checks out, heartbeats at refreshAfter, reports the lease, borrows, and release() frees the seat for another machine', async () => {
    const h = await createHarness({ mode: 'node-server', store: setup.store });
    const { product, license } = await licensed(h, {}, { code: 'team', seatMode: 'floating', maxActivations: 1, leaseSeconds: 300, maxBorrowDays: 10 });
    const keys = (await h.api('GET', `/products/${product.id}/keys`)).body.data;
    const mono = 0;
    const base = h.clock.now();
    const clock = manualTimers(h);
    const heartbeats: boolean[] = [];
    const client = (machineId: string, heartbeat: boolean) => createLicenseClient({
      baseUrl: 'http://licensing.test/v1',
      fetch: (url, init) => h.fetch(url.replace(/^http:\/\/licensing\.test/, ''), init),
      product: product.id, publicKeys: keys, appVersion: '1.0.0', storage: createMemoryStorage(), machineId,
      now: () => h.clock.now(), monotonicNow: () => mono + (h.clock.now() - base),
      heartbeat, timers: clock.timers, onHeartbeat: (check) => void heartbeats.push(check.valid),
    });
    const laptop = client('laptop', true);
    const activated = await laptop.activate(license.key, { name: 'Laptop' });
    expect(activated.valid).toBe(true);
    const checked = await laptop.check();
    expect(checked.lease).toMatchObject({ floating: true, borrowedUntil: null, leaseSeconds: 300 });
    expect(checked.lease!.endsAt).toBe(h.clock.now() + 300_000);

    // The heartbeat fires before refreshAfter (100 s, less up to 10%) and renews the lease.
    const delay = clock.fireNext();
    expect(delay).toBeGreaterThanOrEqual(90_000);
    expect(delay).toBeLessThanOrEqual(100_000);
    await expect.poll(() => heartbeats.length).toBe(1);
    expect(heartbeats).toEqual([true]);
    const view = (await h.api('GET', `/licenses/${license.id}`)).body;
    expect(view).toMatchObject({ liveLeases: 1 });
    expect(Date.parse(view.activations[0].leaseExpiresAt)).toBe(Math.floor(h.clock.now() / 1000) * 1000 + 300_000);

    // The only seat is held: another machine is refused.
    const desk = client('desk', false);
    await expect(desk.activate(license.key)).rejects.toMatchObject({ code: 'activation_limit' });

    const borrowed = await laptop.borrow(3);
    expect(borrowed.valid).toBe(true);
    // On this machine's clock: the server's end, timed from receipt (within the second the server rounds to).
    const until = (await laptop.check()).lease!.borrowedUntil!;
    expect(Math.abs(until - (h.clock.now() + 3 * 86_400_000))).toBeLessThan(1_000);
    expect((await h.api('GET', `/licenses/${license.id}`)).body).toMatchObject({ borrowedLeases: 1 });
    // Quitting the app keeps a borrow; returnBorrow gives it back.
    expect(await laptop.release()).toEqual({ released: false });
    expect(await laptop.release({ returnBorrow: true })).toEqual({ released: true });
    expect((await h.api('GET', `/licenses/${license.id}`)).body).toMatchObject({ liveLeases: 0, activationCount: 0 });
    expect((await desk.activate(license.key)).valid).toBe(true);
  });
});
