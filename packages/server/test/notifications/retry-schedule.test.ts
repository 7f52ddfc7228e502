import { describe, expect, it } from 'vitest';
import { RETRY_WINDOW_MS, nextAttemptAt } from '../../src/notifications/index.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const t0 = Date.UTC(2025, 5, 1);

/** The attempt times of a notification that always fails, each attempt taking `durationMs`. */
function failingForever(random: () => number, durationMs = 0): number[] {
  const times = [t0];
  for (;;) {
    const next = nextAttemptAt({ attempts: times.length, firstAttemptAt: t0, now: (times.at(-1) as number) + durationMs }, random);
    if (next === null) return times;
    times.push(next);
  }
}

describe('the retry schedule', () => {
  it('waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, then every 10 h, without jitter at the middle of its range', () => {
    const times = failingForever(() => 0.5);
    const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
    expect(gaps.slice(0, 9)).toEqual([5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 10 * H, 10 * H, 10 * H]);
  });

  it('gives up after a last attempt at the 3-day mark', () => {
    const times = failingForever(() => 0.5);
    expect(times.at(-1)).toBe(t0 + RETRY_WINDOW_MS);
    expect(RETRY_WINDOW_MS).toBe(72 * H);
    expect(times.at(-2)).toBeLessThan(t0 + RETRY_WINDOW_MS);
    expect(times).toHaveLength(13);
    expect(nextAttemptAt({ attempts: 13, firstAttemptAt: t0, now: t0 + RETRY_WINDOW_MS + 1 })).toBeNull();
  });

  it('counts each delay from the end of the failed attempt', () => {
    expect(nextAttemptAt({ attempts: 1, firstAttemptAt: t0, now: t0 + 9_000 }, () => 0.5)).toBe(t0 + 9_000 + 5 * S);
  });

  it('jitters each delay by ±10%, from the injected random source', () => {
    const low = failingForever(() => 0);
    const high = failingForever(() => 0.999_999);
    expect(low[1]! - t0).toBe(4_500);
    expect(high[1]! - t0).toBe(5_500);
    expect(low[2]! - low[1]!).toBe(270 * S);
    expect(high[2]! - high[1]!).toBe(330 * S);
    // Deliveries that failed together spread out instead of coming back at once.
    const spread = new Set(Array.from({ length: 50 }, () => nextAttemptAt({ attempts: 3, firstAttemptAt: t0, now: t0 })));
    expect(spread.size).toBeGreaterThan(40);
    for (const at of spread) expect(at! - t0).toBeGreaterThanOrEqual(27 * M);
    for (const at of spread) expect(at! - t0).toBeLessThan(33 * M);
  });

  it('refuses to schedule before any attempt was made', () => {
    expect(() => nextAttemptAt({ attempts: 0, firstAttemptAt: t0, now: t0 })).toThrow(RangeError);
  });
});
