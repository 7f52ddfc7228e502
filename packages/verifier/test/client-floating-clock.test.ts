import { describe, expect, it } from 'vitest';
import { DAY, T0 } from '../../../test-vectors/fixtures.js';
import { counting, floatingState, LEASE, machine } from './support/floating.js';

// The SDK times a floating lease from its receipt (docs/floating-seats.md, "SDK"): its clock a day
// off, frozen, set back, and the machine asleep. The stored state is what the SDK keeps after an
// activate; the server address is a real socket that closes every connection (a network error), so
// a due refresh fails and the cached certificate is judged alone.
const S = 1000;
const T0_MS = T0 * S;

describe('a floating lease on a machine whose clock is a day off', () => {
  for (const [label, offset] of [
    ['a day fast', DAY * S],
    ['a day slow', -DAY * S],
    ['five hours fast', 5 * 3600 * S],
  ] as const) {
    it(`${label}: valid for the whole lease from receipt, expired at its end (an SDK judging by the wall clock would ${offset > 0 ? 'kill it at once' : 'stretch it'})`, async () => {
      const m = machine(floatingState(T0_MS + offset), T0_MS + offset);
      const first = await m.client.check();
      expect(first).toMatchObject({ valid: true, offline: true, refreshError: null });
      expect(first.lease).toEqual({ floating: true, endsAt: T0_MS + offset + LEASE * S, borrowedUntil: null, leaseSeconds: LEASE });

      m.run((LEASE / 3) * S - 1);
      const before = counting.connections;
      expect(await m.client.check()).toMatchObject({ valid: true, refreshError: null });
      expect(counting.connections).toBe(before); // refreshAfter not reached on the lease's own time

      m.run(1);
      expect(await m.client.check()).toMatchObject({ valid: true, offline: true, refreshError: 'network_error' });
      expect(counting.connections).toBe(before + 1); // due: the heartbeat an old SDK makes too

      m.run((LEASE - LEASE / 3) * S - 1);
      expect(await m.client.check()).toMatchObject({ valid: true });
      m.run(1);
      expect(await m.client.check()).toMatchObject({ valid: false, outcome: 'expired', reason: 'expired', refreshError: 'network_error' });
    });
  }

  it('a machine-plan certificate is still judged by the wall clock, as before', async () => {
    const { lease: _, ...machinePlan } = floatingState(T0_MS);
    const m = machine({ ...machinePlan, lease: null }, T0_MS + DAY * S);
    expect(await m.client.check()).toMatchObject({ valid: false, outcome: 'expired', lease: { floating: false, endsAt: (T0 + LEASE) * S } });
  });
});

describe('a floating lease on a machine whose clock is frozen or set back', () => {
  it('frozen: the monotonic clock ends the lease on time', async () => {
    const m = machine(floatingState(T0_MS), T0_MS);
    await m.client.check(); // the SDK sees the lease at its receipt
    m.mono.now += LEASE * S - 1;
    expect(await m.client.check()).toMatchObject({ valid: true });
    m.mono.now += 1;
    expect(await m.client.check()).toMatchObject({ valid: false, outcome: 'expired' });
  });

  it('set back by hours while the app runs: the lease still ends on time, and its end on this clock moves back with it', async () => {
    const m = machine(floatingState(T0_MS), T0_MS);
    await m.client.check();
    m.run(600 * S);
    m.wall.now -= 2 * 3600 * S;
    const check = await m.client.check();
    expect(check).toMatchObject({ valid: true });
    expect(check.lease!.endsAt).toBe(m.wall.now + 300 * S);
    m.mono.now += 300 * S;
    expect(await m.client.check()).toMatchObject({ valid: false, outcome: 'expired' });
  });

  it('the machine asleep (the monotonic clock stopped, the wall clock on): the wall clock ends the lease', async () => {
    const m = machine(floatingState(T0_MS), T0_MS);
    await m.client.check();
    m.mono.now += 10 * S;
    m.wall.now += 2 * 3600 * S;
    expect(await m.client.check()).toMatchObject({ valid: false, outcome: 'expired' });
  });

  it('across a restart the run time is kept: a clock frozen or set back to the receipt gives back only the time the app was closed', async () => {
    const first = machine(floatingState(T0_MS), T0_MS);
    await first.client.check();
    first.run(600 * S);
    expect(await first.client.check()).toMatchObject({ valid: true });
    expect(first.stored().lease!.ranMs).toBe(600 * S); // saved by check(): it grew by 10 s or more

    // A new process: its monotonic clock starts again, the wall clock is set back to the receipt.
    const second = machine(null, T0_MS, {}, first.storage);
    expect(await second.client.check()).toMatchObject({ valid: true });
    second.mono.now += 300 * S - 1;
    expect(await second.client.check()).toMatchObject({ valid: true });
    second.mono.now += 1;
    expect(await second.client.check()).toMatchObject({ valid: false, outcome: 'expired' });
  });

  it('across a restart with a right clock, the time the app was closed counts', async () => {
    const first = machine(floatingState(T0_MS), T0_MS);
    await first.client.check();
    first.run(100 * S);
    await first.client.check();
    const second = machine(null, T0_MS + LEASE * S, {}, first.storage);
    expect(await second.client.check()).toMatchObject({ valid: false, outcome: 'expired' });
  });

  it('run time is saved at most every 10 seconds of it, not at every check', async () => {
    const m = machine(floatingState(T0_MS), T0_MS);
    await m.client.check();
    m.mono.now += 9 * S;
    await m.client.check();
    expect(m.stored().lease!.ranMs).toBe(0);
    m.mono.now += 1 * S;
    await m.client.check();
    expect(m.stored().lease!.ranMs).toBe(10 * S);
  });

  it('the clock-rollback rule of machine certificates does not apply to a fresh lease: a clock two days slow still runs', async () => {
    const m = machine(floatingState(T0_MS - 2 * DAY * S), T0_MS - 2 * DAY * S);
    expect(await m.client.check()).toMatchObject({ valid: true, outcome: 'valid' });
  });
});
