/**
 * The embedded store's index of pending notification deliveries by due time: a binary min-heap
 * of (dueAt, id) entries, each holding the row object it was made for. Rows are never changed in
 * place (a write replaces the object), so an entry is current exactly while its row is still the
 * stored one; stale entries (the delivery since claimed, recorded or deleted) are dropped when
 * they come to the top, and the heap is rebuilt when they outnumber the current ones. A claim
 * reads the soonest due deliveries in O(limit · log n) instead of scanning every pending one
 * (a dispatcher claims once per batch, over a backlog of thousands).
 */

/** A pending delivery's row as the index sees it. */
export interface DueRow {
  id: string;
  dueAt?: unknown;
  state?: unknown;
}

interface Entry<R extends DueRow> {
  dueAt: number;
  id: string;
  row: R;
}

/** Entry `a` comes before `b`: due sooner, then the smaller id. */
const before = (a: Entry<DueRow>, b: Entry<DueRow>): boolean => a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.id < b.id);

/** Whether `row` belongs in the index: pending with a due time. */
export const isDue = (row: DueRow): boolean => row.state === 'pending' && typeof row.dueAt === 'number';

export class DueIndex<R extends DueRow> {
  readonly #heap: Entry<R>[] = [];

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
    this.#push({ dueAt: row.dueAt as number, id: row.id, row });
    if (this.#heap.length > 1024 && this.#heap.length > 4 * this.pendingCount()) this.#rebuild();
  }

  /** The `limit` rows due soonest at `now` (by due time, then id), left in the index. */
  soonest(now: number, limit: number): R[] {
    const taken: Entry<R>[] = [];
    const seen = new Set<string>();
    while (taken.length < limit && this.#heap.length > 0) {
      const top = this.#heap[0]!;
      if (this.current(top.id) !== top.row || seen.has(top.id)) {
        this.#pop(); // stale, or a second entry of the same row (put back by a rollback)
        continue;
      }
      if (top.dueAt > now) break;
      taken.push(this.#pop());
      seen.add(top.id);
    }
    for (const entry of taken) this.#push(entry);
    return taken.map((e) => e.row);
  }

  #rebuild(): void {
    this.#heap.length = 0;
    for (const row of this.pending()) if (isDue(row)) this.#push({ dueAt: row.dueAt as number, id: row.id, row });
  }

  #push(entry: Entry<R>): void {
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

  #pop(): Entry<R> {
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
