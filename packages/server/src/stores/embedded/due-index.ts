/**
 * The embedded store's index of pending notification deliveries by due time: a binary min-heap
 * of the row objects themselves, ordered by (dueAt, id). Rows are never changed in place (a write
 * replaces the object), so an entry is current exactly while its row is still the stored one, and
 * a row's due time and id are its entry's key (no entry object per delivery); stale entries (the
 * delivery since claimed, recorded or deleted) are dropped when they come to the top, and the heap
 * is rebuilt when they outnumber the current ones. A claim
 * reads the soonest due deliveries in O(limit · log n) instead of scanning every pending one
 * (a dispatcher claims once per batch, over a backlog of thousands).
 */

/** A pending delivery's row as the index sees it. */
export interface DueRow {
  id: string;
  dueAt?: unknown;
  state?: unknown;
}

/** Row `a` comes before `b`: due sooner, then the smaller id (both in the index: due at a number). */
const before = (a: DueRow, b: DueRow): boolean => {
  const x = a.dueAt as number;
  const y = b.dueAt as number;
  return x < y || (x === y && a.id < b.id);
};

/** Whether `row` belongs in the index: pending with a due time. */
export const isDue = (row: DueRow): boolean => row.state === 'pending' && typeof row.dueAt === 'number';

export class DueIndex<R extends DueRow> {
  readonly #heap: R[] = [];

  /**
   * `current(id)`: the stored row of that id (null when none); `pending()`: every pending row, to
   * rebuild; `pendingCount()`: how many there are.
   */
  constructor(
    private readonly current: (id: string) => R | null,
    private readonly pending: () => Iterable<R>,
    private readonly pendingCount: () => number,
  ) {}

  /** Notes a row just stored (a no-op unless it is pending and due at some time). */
  add(row: R): void {
    if (!isDue(row)) return;
    this.#push(row);
    if (this.#heap.length > 1024 && this.#heap.length > 4 * this.pendingCount()) this.#rebuild();
  }

  /** The `limit` rows due soonest at `now` (by due time, then id), left in the index. */
  soonest(now: number, limit: number): R[] {
    const taken: R[] = [];
    const seen = new Set<string>();
    while (taken.length < limit && this.#heap.length > 0) {
      const top = this.#heap[0]!;
      if (this.current(top.id) !== top || seen.has(top.id)) {
        this.#pop(); // stale, or a second entry of the same row (put back by a rollback)
        continue;
      }
      if ((top.dueAt as number) > now) break;
      taken.push(this.#pop());
      seen.add(top.id);
    }
    for (const row of taken) this.#push(row);
    return taken;
  }

  #rebuild(): void {
    this.#heap.length = 0;
    for (const row of this.pending()) if (isDue(row)) this.#push(row);
  }

  #push(entry: R): void {
    const heap = this.#heap;
    let i = heap.length;
    heap.push(entry);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(entry, heap[parent]!)) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = entry;
  }

  #pop(): R {
    const heap = this.#heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length === 0) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && before(heap[right]!, heap[left]!) ? right : left;
      if (!before(heap[child]!, last)) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
    return top;
  }
}
