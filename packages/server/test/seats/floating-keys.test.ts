import { expect, it } from 'vitest';
import { createFloatingKeys } from '../../src/http/floating-keys.js';

// A key answered as floating is counted per machine until it has been unseen for 10 minutes (or
// its lease, when longer), and past the map's bound the least recently answered keys go first (to
// within a minute: a heartbeat updates its key in place, moving it at most once a minute).

const MIN = 60_000;

it('keeps a key while it is answered, forgets it 10 minutes after its last answer, and drops it at once when answered without a lease', () => {
  const keys = createFloatingKeys();
  keys.answered('k', 300, 0);
  for (let t = 10_000; t <= 30 * MIN; t += 10_000) keys.answered('k', 300, t); // a heartbeat every 10 s for half an hour
  expect(keys.leaseSecondsOf('k', 30 * MIN + 10 * MIN)).toBe(300);
  keys.answered('k', 900, 41 * MIN); // the plan's lease changed
  expect(keys.leaseSecondsOf('k', 51 * MIN + 1)).toBe(900); // unseen for its lease (15 minutes), not 10
  expect(keys.leaseSecondsOf('k', 56 * MIN + 1)).toBeNull();
  keys.answered('m', 300, 60 * MIN);
  keys.answered('m', null, 60 * MIN + 1000); // the plan is a machine plan now
  expect(keys.leaseSecondsOf('m', 60 * MIN + 2000)).toBeNull();
});

it('drops the least recently answered keys past its bound, each heartbeat counting at most a minute late', () => {
  const keys = createFloatingKeys(3);
  keys.answered('a', 300, 0);
  keys.answered('b', 300, 1000);
  keys.answered('c', 300, 2000);
  keys.answered('a', 300, 30_000); // within a minute of its move: keeps its place
  keys.answered('b', 300, 2 * MIN); // past a minute: moves after c
  keys.answered('d', 300, 2 * MIN + 1000); // over the bound: the oldest, a, goes
  expect(['a', 'b', 'c', 'd'].map((k) => keys.leaseSecondsOf(k, 2 * MIN + 2000))).toEqual([null, 300, 300, 300]);
  keys.answered('e', 300, 3 * MIN); // then c
  expect(['b', 'c', 'd', 'e'].map((k) => keys.leaseSecondsOf(k, 3 * MIN))).toEqual([300, null, 300, 300]);
});
