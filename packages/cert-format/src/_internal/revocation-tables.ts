// The binary entry tables of an RVL1 revocation list (docs/rvl1.md, "Entry tables"): entry keys,
// packing for the encoder, and reading straight into open-addressing hash tables for the verifier.
// Pure functions over bytes and typed arrays; problems are returned as text, never thrown.
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8Encode } from './utf8.js';

/** Drop-out instants are whole UTC days (multiples of this many seconds). */
export const DAY_SECONDS = 86_400;
export const GROUP_HEADER_BYTES = 8;
export const LICENSE_ENTRY_BYTES = 8;
export const ACTIVATION_ENTRY_BYTES = 10;
/** Largest `until - freedAt` an activation entry holds: 2^25 - 1 seconds (388 days and a bit). */
export const MAX_FREED_AGE = 0x1ff_ffff;

/** An entry key: `hi` = the first 32 bits of the SHA-256, `lo` = the next 32 (license) or 23 (activation) bits. */
export interface EntryKey {
  hi: number;
  lo: number;
}

const u32 = (b: Uint8Array, at: number): number => ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;

// The texts hashed into keys are ASCII for the service's IDs and fingerprints: written byte by byte
// into a reused buffer, since TextEncoder costs a few microseconds per call in a browser, as much as
// the hash itself. Any other text goes through TextEncoder (UTF-8), so the bytes are the same.
const LICENSE_PREFIX = 'rvl1:license:';
const ACTIVATION_PREFIX = 'rvl1:activation:';
let scratch = new Uint8Array(256);

function keyInput(prefix: string, license: string, fingerprint: string | null): Uint8Array {
  const length = prefix.length + license.length + (fingerprint === null ? 0 : fingerprint.length + 1);
  if (length > scratch.length) scratch = new Uint8Array(length * 2);
  const out = scratch;
  let at = 0;
  let high = 0;
  for (let i = 0; i < prefix.length; i++) out[at++] = prefix.charCodeAt(i);
  for (let i = 0; i < license.length; i++) high |= out[at++] = license.charCodeAt(i);
  if (fingerprint !== null) {
    out[at++] = 58; // ':'
    for (let i = 0; i < fingerprint.length; i++) high |= out[at++] = fingerprint.charCodeAt(i);
  }
  if (high < 128) return out.subarray(0, length);
  return utf8Encode(fingerprint === null ? prefix + license : `${prefix}${license}:${fingerprint}`);
}

export function licenseEntryKey(license: string): EntryKey {
  const d = sha256(keyInput(LICENSE_PREFIX, license, null));
  return { hi: u32(d, 0), lo: u32(d, 4) };
}

export function activationEntryKey(license: string, fingerprint: string): EntryKey {
  const d = sha256(keyInput(ACTIVATION_PREFIX, license, fingerprint));
  return { hi: u32(d, 0), lo: (d[4]! << 15) | (d[5]! << 7) | (d[6]! >> 1) };
}

// ---- Packing (encoder) ----

export interface LicenseRow extends EntryKey {
  until: number;
}
export interface ActivationRow extends EntryKey {
  until: number;
  freedAt: number;
}

const byUntilThenKey = (a: LicenseRow, b: LicenseRow): number => a.until - b.until || a.hi - b.hi || a.lo - b.lo;

function putU32(out: Uint8Array, at: number, value: number): void {
  out[at] = value >>> 24;
  out[at + 1] = (value >>> 16) & 255;
  out[at + 2] = (value >>> 8) & 255;
  out[at + 3] = value & 255;
}

/** Groups rows by `until` (ascending), keys ascending in each group; rows must have distinct keys. */
function packGroups<R extends LicenseRow>(rows: R[], entryBytes: number, putEntry: (out: Uint8Array, at: number, row: R) => void): Uint8Array {
  rows.sort(byUntilThenKey);
  let groups = 0;
  for (let i = 0; i < rows.length; i++) if (i === 0 || rows[i]!.until !== rows[i - 1]!.until) groups++;
  const out = new Uint8Array(groups * GROUP_HEADER_BYTES + rows.length * entryBytes);
  let at = 0;
  for (let i = 0; i < rows.length; ) {
    const until = rows[i]!.until;
    let end = i;
    while (end < rows.length && rows[end]!.until === until) end++;
    putU32(out, at, until);
    putU32(out, at + 4, end - i);
    at += GROUP_HEADER_BYTES;
    for (; i < end; i++, at += entryBytes) putEntry(out, at, rows[i]!);
  }
  return out;
}

export function packLicenseTable(rows: LicenseRow[]): Uint8Array {
  return packGroups(rows, LICENSE_ENTRY_BYTES, (out, at, row) => {
    putU32(out, at, row.hi);
    putU32(out, at + 4, row.lo);
  });
}

/** Throws a RangeError for a row whose `until - freedAt` is outside 0..MAX_FREED_AGE: its high bits would land in the key. */
export function packActivationTable(rows: ActivationRow[]): Uint8Array {
  return packGroups(rows, ACTIVATION_ENTRY_BYTES, (out, at, row) => {
    const age = row.until - row.freedAt;
    if (!(age >= 0 && age <= MAX_FREED_AGE)) throw new RangeError(`until - freedAt is ${age}, outside 0..${MAX_FREED_AGE}`);
    putU32(out, at, row.hi);
    out[at + 4] = row.lo >>> 15;
    out[at + 5] = (row.lo >>> 7) & 255;
    out[at + 6] = ((row.lo & 127) << 1) | (age >>> 24);
    out[at + 7] = (age >>> 16) & 255;
    out[at + 8] = (age >>> 8) & 255;
    out[at + 9] = age & 255;
  });
}

// ---- Reading into hash tables (verifier) ----

/**
 * Open-addressing hash table (linear probing) of one entry table, its slots interleaved in one array
 * so a probe touches one cache line: slot `i` is `slots[i * stride ...]` = key `hi`, key `lo`, `until`
 * and, in activation tables (stride 4), `freedAt`. `until` 0 marks an empty slot.
 */
export interface EntryIndex {
  /** Entries held. */
  count: number;
  /** Slots minus one (a power of two minus one). */
  mask: number;
  /** 3 (license table) or 4 (activation table). */
  stride: number;
  slots: Uint32Array;
}

/** @internal Slots of an index of at most `maxEntries`: a power of two, at least twice as many. */
export function slotCount(maxEntries: number): number {
  let size = 8;
  while (size < maxEntries * 2) size *= 2;
  return size;
}

function emptyIndex(maxEntries: number, stride: number): EntryIndex {
  const size = slotCount(maxEntries);
  return { count: 0, mask: size - 1, stride, slots: new Uint32Array(size * stride) };
}

/** The offset in `slots` of the slot holding `key`, or -1. */
export function findSlot(index: EntryIndex, key: EntryKey): number {
  const { mask, stride, slots } = index;
  let slot = key.hi & mask;
  for (let at = slot * stride; slots[at + 2] !== 0; slot = (slot + 1) & mask, at = slot * stride) {
    if (slots[at] === key.hi && slots[at + 1] === key.lo) return at;
  }
  return -1;
}

/**
 * Reads a license (`activation` false) or activation table into a hash table, checking every rule of
 * the format: whole groups, `until` a positive multiple of 86400 in strictly ascending order, at
 * least one entry per group, keys strictly ascending in a group and never repeated in the table,
 * `freedAt` not before the epoch. Returns the problem as text when the bytes break one.
 */
export function readTable(bytes: Uint8Array, activation: boolean): EntryIndex | string {
  const index = emptyIndex(Math.floor(bytes.length / (activation ? ACTIVATION_ENTRY_BYTES : LICENSE_ENTRY_BYTES)), activation ? 4 : 3);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const read = activation ? readActivations : readLicenses;
  return readGroups(bytes, activation, index, (at, count, until) => read(view, at, count, until, index));
}

/** @internal Reads `count` entries from `at` of a group into the index: null, or the problem. */
export type GroupReader = (at: number, count: number, until: number) => string | null;

/**
 * @internal The group level of {@link readTable}: headers and their rules, each group's entries
 * handed to `readGroup` (the loops below, or the WebAssembly ones of revocation-tables-wasm.ts).
 */
export function readGroups(bytes: Uint8Array, activation: boolean, index: EntryIndex, readGroup: GroupReader): EntryIndex | string {
  const entryBytes = activation ? ACTIVATION_ENTRY_BYTES : LICENSE_ENTRY_BYTES;
  const end = bytes.length;
  let at = 0;
  let previousUntil = 0;
  while (at < end) {
    if (end - at < GROUP_HEADER_BYTES) return 'truncated group header';
    const until = u32(bytes, at);
    const count = u32(bytes, at + 4);
    at += GROUP_HEADER_BYTES;
    if (until === 0 || until % DAY_SECONDS !== 0) return `until ${until} is not a positive multiple of 86400`;
    if (until <= previousUntil) return 'groups are not in strictly ascending until order';
    if (count === 0) return 'empty group';
    if (count > (end - at) / entryBytes) return 'truncated group';
    const problem = readGroup(at, count, until);
    if (problem !== null) return problem;
    index.count += count;
    at += count * entryBytes;
    previousUntil = until;
  }
  return index;
}

// The two entry loops below run 100,000 times for a large list, in a page that has just loaded: kept
// flat (arrays in locals, big-endian words read through a DataView, several times faster than
// assembling bytes once optimized) so they are fast from the first iterations on.

function readLicenses(b: DataView, start: number, count: number, until: number, index: EntryIndex): string | null {
  const { mask, slots } = index;
  let previousHi = -1;
  let previousLo = -1;
  for (let i = 0, at = start; i < count; i++, at += LICENSE_ENTRY_BYTES) {
    const hi = b.getUint32(at);
    const lo = b.getUint32(at + 4);
    if (hi < previousHi || (hi === previousHi && lo <= previousLo)) return 'keys are not in strictly ascending order';
    let slot = hi & mask;
    let to = slot * 3;
    while (slots[to + 2] !== 0) {
      if (slots[to] === hi && slots[to + 1] === lo) return 'a key appears twice';
      slot = (slot + 1) & mask;
      to = slot * 3;
    }
    slots[to] = hi;
    slots[to + 1] = lo;
    slots[to + 2] = until;
    previousHi = hi;
    previousLo = lo;
  }
  return null;
}

function readActivations(b: DataView, start: number, count: number, until: number, index: EntryIndex): string | null {
  const { mask, slots } = index;
  let previousHi = -1;
  let previousLo = -1;
  for (let i = 0, at = start; i < count; i++, at += ACTIVATION_ENTRY_BYTES) {
    const hi = b.getUint32(at);
    const middle = b.getUint32(at + 4); // key bits 32..54, then the top age bit
    const lo = middle >>> 9;
    const freedAt = until - (((middle & 0x1ff) << 16) | b.getUint16(at + 8));
    if (freedAt < 0) return 'freedAt before 1970';
    if (hi < previousHi || (hi === previousHi && lo <= previousLo)) return 'keys are not in strictly ascending order';
    let slot = hi & mask;
    let to = slot * 4;
    while (slots[to + 2] !== 0) {
      if (slots[to] === hi && slots[to + 1] === lo) return 'a key appears twice';
      slot = (slot + 1) & mask;
      to = slot * 4;
    }
    slots[to] = hi;
    slots[to + 1] = lo;
    slots[to + 2] = until;
    slots[to + 3] = freedAt;
    previousHi = hi;
    previousLo = lo;
  }
  return null;
}
