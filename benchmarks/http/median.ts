// The median of paired rounds' ratios and its distribution-free interval, for benchmarks that
// alternate two things in many short rounds (http/ab.ts, seats/heartbeat.ts).

/** The median of `xs` (the upper one of an even count). */
export const median = (xs: readonly number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;

/**
 * The widest pair of order statistics (k-th smallest, k-th largest) that holds the median with at
 * least 95 % confidence: P(k <= X <= n - k) for X ~ Binomial(n, 1/2) (the sign test's interval;
 * the rounds taken as independent). Null under 6 values or with a NaN among them.
 *
 * @example
 * ```ts
 * medianInterval([0.7, 0.72, 0.68, 0.75, 0.71, 0.69, 0.74, 0.7]); // [0.68, 0.75]
 * ```
 */
export function medianInterval(xs: readonly number[]): [number, number] | null {
  const n = xs.length;
  const sorted = [...xs].filter((x) => !Number.isNaN(x)).sort((x, y) => x - y);
  if (sorted.length !== n || n < 6) return null;
  const choose = (k: number) => Array.from({ length: k }, (_, i) => (n - i) / (i + 1)).reduce((p, x) => p * x, 1);
  let k = 0;
  let tail = 0; // P(X <= k - 1) after each step, then P(X <= k)
  while (true) {
    const next = tail + choose(k) / 2 ** n;
    if (2 * next > 0.05) break;
    tail = next;
    k++;
  }
  return k === 0 ? null : [sorted[k - 1]!, sorted[n - k]!];
}
