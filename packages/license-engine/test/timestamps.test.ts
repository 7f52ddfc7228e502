import { expect, it } from 'vitest';
import { timestampMs, toTimestamp } from '../src/_internal/time.js';

// timestampMs keeps its last parses (a heartbeat reads the same lease end several times): whatever
// order stored timestamps are read in, each gives its own instant.

it('gives each stored timestamp its own instant, read in any order and again', () => {
  const texts = ['2030-01-01T00:00:00Z', '2030-01-01T00:05:00Z', '2031-06-30T23:59:59Z', '1999-12-31T23:59:59Z'];
  const order = [0, 1, 0, 1, 2, 0, 3, 3, 1, 2, 2, 0, 1, 3];
  for (const i of order) expect(timestampMs(texts[i]!)).toBe(Date.parse(texts[i]!));
  // A text equal to a cached one but a different string object, and one formatted by toTimestamp.
  expect(timestampMs(['2030-01-01T00:05', ':00Z'].join(''))).toBe(Date.UTC(2030, 0, 1, 0, 5));
  expect(timestampMs(toTimestamp(Date.UTC(2032, 1, 29, 12)))).toBe(Date.UTC(2032, 1, 29, 12));
});
