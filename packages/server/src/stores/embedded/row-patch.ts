import type { Patch, Row } from './tables.js';
import { sameJson } from './plain.js';

/**
 * Patches of stored rows: what a journal line holds for an update that changes a few top-level
 * fields of a row (a heartbeat's `lastSeenAt` and `leaseExpiresAt` out of an activation's dozen
 * fields) instead of the whole record (`journal-line.ts`). Replay applies a patch to the row
 * replayed so far.
 */

const NONE: readonly string[] = Object.freeze([]);

/**
 * How `row` differs from `before` (the same record before the unit): undefined when their JSON is
 * the same (nothing to journal), the {@link Patch} when at most half of `row`'s fields changed (or
 * were removed), else null (the whole row is the smaller line). Fields holding `undefined` count as
 * absent, as in JSON; a field holding an object or array counts as changed unless its JSON is the same.
 */
export function rowPatch(before: Row, row: Row): Patch | null | undefined {
  let set: Record<string, unknown> | null = null;
  let unset: string[] | null = null;
  let fields = 0;
  let changed = 0;
  for (const key in row) {
    const value = row[key];
    if (value === undefined) continue;
    fields++;
    const old = before[key];
    if (value === old || (typeof value === 'object' && typeof old === 'object' && sameJson(value, old))) continue;
    (set ??= {})[key] = value;
    changed++;
  }
  for (const key in before) {
    if (before[key] !== undefined && row[key] === undefined) {
      (unset ??= []).push(key);
      changed++;
    }
  }
  if (changed === 0) return undefined;
  return changed * 2 <= fields ? { set: set ?? {}, unset: unset ?? NONE } : null;
}

/** `before` with `patch` applied: a new row (stored rows are never changed in place). */
export function patched(before: Row, patch: Patch): Row {
  const row: Row = { ...before };
  for (const key in patch.set) row[key] = patch.set[key];
  for (const key of patch.unset) delete row[key];
  return row;
}
