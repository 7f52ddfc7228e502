import { spawn } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { T0 } from '../../../test-vectors/fixtures.js';
import { HEARTBEAT_JITTER, heartbeatDelayMs, MAX_TIMER_MS, MIN_RETRY_MS, retryDelayMs } from '../src/client-heartbeat.js';
import type { LicenseCheck } from '../src/client-types.js';
import { counting, floatingState, LEASE, machine } from './support/floating.js';

const S = 1000;
const T0_MS = T0 * S;
const INTERVAL = (LEASE / 3) * S;

describe('when the heartbeat validates', () => {
  it('at refreshAfter less at most 10% of the refresh interval, never after it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20 * 86_400_000 }), fc.integer({ min: 1000, max: 86_400_000 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (until, interval, random) => {
        const delay = heartbeatDelayMs(until, interval, random);
        expect(delay).toBeLessThanOrEqual(until);
        expect(delay).toBeGreaterThanOrEqual(Math.max(0, Math.floor(until - HEARTBEAT_JITTER * interval)));
      }),
    );
    expect(heartbeatDelayMs(300_000, 300_000, 0)).toBe(300_000);
    expect(heartbeatDelayMs(300_000, 300_000, 0.999_999)).toBe(270_000);
  });

  it('at once when refreshAfter has passed, and never beyond the longest timer', () => {
    expect(heartbeatDelayMs(-5_000, 300_000, 0.5)).toBe(0);
    expect(heartbeatDelayMs(40 * 86_400_000, 86_400_000, 0)).toBe(MAX_TIMER_MS);
  });

  it('after failures: 10% of the interval, doubling up to the whole interval, less up to 10%, at least 5 s', () => {
    expect([1, 2, 3, 4, 5, 9].map((n) => retryDelayMs(300_000, n, 0))).toEqual([30_000, 60_000, 120_000, 240_000, 300_000, 300_000]);
    expect(retryDelayMs(300_000, 1, 0.999_999)).toBe(27_000);
    expect(retryDelayMs(40_000, 1, 0)).toBe(MIN_RETRY_MS); // a 120 s lease: 4 s would be too eager
    fc.assert(
      fc.property(fc.integer({ min: 1000, max: 86_400_000 }), fc.integer({ min: 1, max: 60 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (interval, failures, random) => {
        const delay = retryDelayMs(interval, failures, random);
        expect(delay).toBeGreaterThanOrEqual(MIN_RETRY_MS);
        expect(delay).toBeLessThanOrEqual(Math.max(MIN_RETRY_MS, interval));
      }),
    );
  });

  it('a refused machine calls about once per interval: within the server budget of three calls per interval, over an hour of retries', () => {
    let calls = 0;
    let time = 0;
    for (let failures = 1; time < 3_600_000; failures++, calls++) time += retryDelayMs(INTERVAL, failures, 0);
    expect(calls).toBeLessThanOrEqual(3 * (3_600_000 / INTERVAL));
  });
});

describe('the heartbeat of a client (fake timers and clocks)', () => {
  it('plans the next validate from the lease receipt, whatever the wall clock says', async () => {
    const m = machine(floatingState(T0_MS + 7 * 3600 * S), T0_MS + 7 * 3600 * S, { heartbeat: true });
    await m.client.check();
    expect(m.timers.delay).toBeGreaterThanOrEqual(INTERVAL * 0.9);
    expect(m.timers.delay).toBeLessThanOrEqual(INTERVAL);
  });

  it('without heartbeat: true plans nothing', async () => {
    const m = machine(floatingState(T0_MS), T0_MS);
    await m.client.check();
    expect(m.timers.pending).toEqual([]);
  });

  it('validates when the timer fires; on failures reports the cached lease and retries sooner, backing off', async () => {
    const seen: LicenseCheck[] = [];
    const m = machine(floatingState(T0_MS), T0_MS, { heartbeat: true, onHeartbeat: (check) => seen.push(check) });
    await m.client.check();
    const before = counting.connections;
    const waits: number[] = [];
    for (let n = 0; n < 3; n++) {
      waits.push(m.timers.delay);
      m.run(m.timers.delay);
      m.timers.fire();
      await expect.poll(() => seen.length).toBe(n + 1);
    }
    expect(counting.connections).toBe(before + 3);
    expect(seen.map((c) => [c.valid, c.offline, c.refreshError])).toEqual([
      [true, true, 'network_error'],
      [true, true, 'network_error'],
      [true, true, 'network_error'],
    ]);
    expect(waits[1]).toBeGreaterThanOrEqual(0.09 * INTERVAL);
    expect(waits[1]).toBeLessThanOrEqual(0.1 * INTERVAL);
    expect(waits[2]).toBeGreaterThanOrEqual(0.18 * INTERVAL);
    expect(waits[2]).toBeLessThanOrEqual(0.2 * INTERVAL);
    expect(m.timers.pending).toHaveLength(1); // still trying
  });

  it('one pending heartbeat at most, however often check() is called', async () => {
    const m = machine(floatingState(T0_MS), T0_MS, { heartbeat: true });
    for (let n = 0; n < 5; n++) await m.client.check();
    expect(m.timers.pending).toHaveLength(1);
  });

  it('stops on release(), also when the machine holds no floating seat', async () => {
    const m = machine(floatingState(T0_MS), T0_MS, { heartbeat: true });
    await m.client.check();
    expect(m.timers.pending).toHaveLength(1);
    expect(await m.client.release()).toEqual({ released: false }); // the socket closes: not released, kept
    expect(m.timers.pending).toEqual([]);
    expect(m.stored()).toMatchObject({ certificate: expect.stringMatching(/^CRT1\./), released: false });
  });

  it('timers never keep a Node process alive: a process with a heartbeat planned minutes ahead exits at once', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', new URL('./fixtures/heartbeat-process.ts', import.meta.url).pathname], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    const started = Date.now();
    // The heartbeat is planned 270-300 s ahead: a process still running after 20 s is held by its timer.
    const stuck = setTimeout(() => child.kill(), 20_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    clearTimeout(stuck);
    expect(code, `${err} (killed after ${Date.now() - started} ms)`).toBe(0);
    const report = JSON.parse(out) as { valid: boolean; planned: number[] };
    expect(report.valid).toBe(true);
    expect(report.planned).toHaveLength(1);
    expect(report.planned[0]).toBeGreaterThanOrEqual(INTERVAL * 0.9 - 5000);
  });
});

describe('release() without a server answer', () => {
  it('sends nothing on a machine plan or for a borrowed seat, and frees a borrowed one only with returnBorrow', async () => {
    const { lease: _, ...machinePlan } = floatingState(T0_MS);
    const plain = machine({ ...machinePlan, lease: null }, T0_MS);
    const borrowed = machine(floatingState(T0_MS, { borrowedUntil: T0 + 3 * 86_400, leaseExpiresAt: T0 + 3 * 86_400 }, { expiresAt: T0 + 3 * 86_400, refreshAfter: T0 + 86_400 }), T0_MS);
    const before = counting.connections;
    expect(await plain.client.release()).toEqual({ released: false });
    expect(await borrowed.client.release()).toEqual({ released: false });
    expect(counting.connections).toBe(before);
    expect(await borrowed.client.release({ returnBorrow: true })).toEqual({ released: false }); // sent, then the socket closed
    expect(counting.connections).toBe(before + 1);
  });

  it('never rejects, even when the storage fails, and works unbound (the methods are bound)', async () => {
    const m = machine(floatingState(T0_MS), T0_MS);
    const broken = machine(null, T0_MS, {}, { read: () => Promise.reject(new Error('disk gone')), write: () => undefined, text: null } as never);
    expect(await broken.client.release()).toEqual({ released: false });
    const { release, check } = m.client;
    expect(await check()).toMatchObject({ valid: true });
    expect(await release()).toEqual({ released: false });
  });
});
