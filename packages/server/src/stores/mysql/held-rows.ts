import type { Collection } from '@svc-licensing/license-engine';

/**
 * The records a unit holds locked and has not deleted since: inserted (held or sent), or read with
 * `lock` and found. An update of one needs no check that it matched: the row exists and the unit
 * holds its lock from that insert or read to its COMMIT, so nothing else can delete it meanwhile.
 * (On Galera a write applied from another node that would delete it aborts this unit first; a
 * batch's tail run in a new transaction after such an abort fails on the unit's savepoint.)
 *
 * Each keeps the `doc` the unit last saw or wrote (null when the unit inserted the row). With
 * `compareLocked` (Galera), an update of a row read locked matches it only while its `doc` is still
 * that one, so a lock the node lost without the unit hearing of it (a brute-force abort whose
 * transaction went on as a new one) fails the unit instead of writing over another node's commit.
 */
export class HeldRows {
  readonly #docs = new Map<string, string | null>();
  add(collection: Collection, id: string, doc: string | null = null): void {
    this.#docs.set(`${collection}\u0000${id}`, doc);
  }
  found(collection: Collection, rows: readonly { doc: string }[], records: readonly object[]): void {
    records.forEach((r, i) => this.add(collection, (r as { id: string }).id, rows[i]!.doc));
  }
  has(collection: Collection, id: string): boolean {
    return this.#docs.has(`${collection}\u0000${id}`);
  }
  /** The `doc` the unit read locked and has not written since (undefined: not held, null: inserted by the unit). */
  doc(collection: Collection, id: string): string | null | undefined {
    return this.#docs.get(`${collection}\u0000${id}`);
  }
  delete(collection: Collection, id: string): void {
    this.#docs.delete(`${collection}\u0000${id}`);
  }
}
