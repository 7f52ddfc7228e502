// A 95% confidence interval for the change "with / without - 1" of paired, alternating rounds
// (issue 28: a verdict at 10% needs the measure's own spread, not one ratio). Percentile
// bootstrap over the rounds: resample the rounds with replacement (each round keeps its pair, so
// the drift the alternation cancels stays cancelled), take the pooled ratio of each resample.
// Seeded, so the same rounds give the same interval.

/** A small seeded generator (mulberry32): the resamples are reproducible from the rounds alone. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Pair {
  without: number;
  with: number;
}

/** The pooled change (sum with / sum without - 1) and its 95% bootstrap interval, as fractions. */
export function changeInterval(pairs: readonly Pair[], resamples = 4000): { change: number; low: number; high: number } {
  const pooled = (sample: readonly Pair[]) => sample.reduce((s, p) => s + p.with, 0) / sample.reduce((s, p) => s + p.without, 0) - 1;
  return bootstrap(pairs, pooled, resamples);
}

/**
 * The median of the rounds' changes and its 95% bootstrap interval: a round where a major
 * collection (or a checkpoint) fell in one phase moves the pooled ratio by points, the median not.
 */
export function medianChangeInterval(pairs: readonly Pair[], resamples = 4000): { change: number; low: number; high: number } {
  const median = (sample: readonly Pair[]) => {
    const changes = sample.map((p) => p.with / p.without - 1).sort((a, b) => a - b);
    return (changes[(changes.length - 1) >> 1]! + changes[changes.length >> 1]!) / 2;
  };
  return bootstrap(pairs, median, resamples);
}

function bootstrap(pairs: readonly Pair[], statistic: (sample: readonly Pair[]) => number, resamples: number): { change: number; low: number; high: number } {
  const random = seeded(0x28);
  const changes: number[] = [];
  for (let i = 0; i < resamples; i++) {
    const sample = pairs.map(() => pairs[Math.floor(random() * pairs.length)]!);
    changes.push(statistic(sample));
  }
  changes.sort((a, b) => a - b);
  return { change: statistic(pairs), low: changes[Math.floor(0.025 * resamples)]!, high: changes[Math.ceil(0.975 * resamples) - 1]! };
}

/** "+12.3% [+8.1 to +16.0]" */
export function formatInterval(ci: { change: number; low: number; high: number }): string {
  const pct = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(1)}`;
  return `${pct(ci.change)}% [${pct(ci.low)} to ${pct(ci.high)}]`;
}
