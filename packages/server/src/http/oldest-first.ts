/**
 * Drops the oldest entries of a `Map` used as an insertion-ordered queue (a bounded cache whose
 * first entries are the oldest), in constant time per entry dropped.
 *
 * `map.keys().next()` is not constant time: V8 leaves a hole for each deleted entry until the
 * table is compacted, and a new iterator walks the holes at the front every time, so evicting one
 * entry at a time from a map of 100,000 cost about 40 µs each (measured in the heartbeat benchmark,
 * benchmarks/RESULTS.md). One iterator kept across calls walks each hole once: every entry before
 * its position has been dropped, entries re-set after a delete move to the end, and V8 carries
 * live iterators across the table's compactions.
 *
 * @example
 * ```ts
 * const windows = new Map<string, number>();
 * const dropOldest = oldestFirst(windows);
 * while (windows.size > 100) dropOldest();
 * ```
 */
export function oldestFirst<K, V>(map: Map<K, V>): () => void {
  let keys: IterableIterator<K> | null = null;
  return () => {
    let next = keys?.next();
    // A finished iterator stays finished even when entries are added after it: start again.
    if (next === undefined || next.done === true) {
      keys = map.keys();
      next = keys.next();
    }
    if (next.done !== true) map.delete(next.value);
  };
}
