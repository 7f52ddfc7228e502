import { crc32 } from 'node:zlib';
import type { Collection } from '@svc-licensing/license-engine';
import type { Change, Patch, Row } from './tables.js';

/** One entry of a decoded line: a record's new image (null: deleted), or a patch of the row replayed so far. */
export type JournalEntry = { collection: Collection; id: string; row: Row | null } | { collection: Collection; id: string; patch: Patch };

/**
 * One line of the embedded store's write-ahead journal (see `journal.ts`), encoded and decoded.
 *
 * Line format: `<crc32 of the rest, 8 hex>` TAB `{"w":[[collection, id, record-or-null], ...]}`,
 * then for each raw field TAB and the field's string as it is, then LF. A raw field is a string
 * that is itself JSON (a notification's body): escaped inside the record's JSON it cost more to
 * encode than the rest of the unit's line, so it is written unescaped after the JSON, and its
 * record's entry names it: `[collection, id, record-without-it, n]` (the n-th raw field). Only a
 * string without TAB and LF (JSON.stringify's output never holds either) and without a lone
 * surrogate (which UTF-8 cannot hold) goes raw; any other stays in the record. Lines without raw
 * fields (every line before this format) read as before.
 *
 * An update that changed at most half of a stored row's top-level fields (`row-patch.ts`; a
 * renewing heartbeat changes two of an activation's dozen) is written as a patch of the row:
 * `[collection, id, {field: new value, ...}, [removed field, ...]]` (the fourth element an array,
 * where a raw field's entry has a number). Replay applies it to the row replayed so far, and a patch
 * of a row that does not exist then is a damaged journal. A patch that would change a raw field is
 * written as the whole row instead. Lines without patches read as before; a journal with patches is
 * not readable by versions before them (they refuse the line: "names a raw field it does not hold").
 * Snapshots always hold whole rows.
 */

/** The field of a collection's records written raw (unescaped) when it can be (journal lines and snapshot parts). */
export const RAW_FIELDS: Partial<Record<Collection, string>> = { notificationDeliveries: 'body' };

/**
 * Whether `text` survives unescaped in a line: no TAB or LF (the separators), no NUL (a line never
 * holds one, so a NUL in a line marks a write torn over a segment's zero padding), no lone surrogate.
 */
export const rawSafe = (text: string): boolean =>
  !text.includes('\t') && !text.includes('\n') && !text.includes('\0') && (text as unknown as { isWellFormed(): boolean }).isWellFormed();

/**
 * Encodes one transaction's changes as a journal line, as the bytes written: each part is encoded to
 * UTF-8 once, straight into the line's buffer, and the checksum is taken over those bytes (the same
 * value as over the text, which is what `decodeLine` checks).
 */
export function encodeLine(changes: readonly Change[]): Buffer {
  let raw: string[] | null = null;
  const w = new Array<unknown[]>(changes.length);
  for (let i = 0; i < changes.length; i++) {
    const c = changes[i]!;
    const field = c.row ? RAW_FIELDS[c.collection] : undefined;
    if (c.patch !== undefined && (field === undefined || !(field in c.patch.set))) {
      w[i] = [c.collection, c.id, c.patch.set, c.patch.unset];
      continue;
    }
    const value = field === undefined ? undefined : c.row![field];
    if (typeof value !== 'string' || !rawSafe(value)) {
      w[i] = [c.collection, c.id, c.row];
      continue;
    }
    (raw ??= []).push(value);
    // An undefined field is left out of the JSON.
    const record: Record<string, unknown> = { ...c.row };
    record[field!] = undefined;
    w[i] = [c.collection, c.id, record, raw.length - 1];
  }
  const json = JSON.stringify({ w });
  // `<crc, 8 hex>` TAB json (TAB raw)* LF
  let size = 10 + Buffer.byteLength(json, 'utf8');
  if (raw) for (const r of raw) size += 1 + Buffer.byteLength(r, 'utf8');
  const line = Buffer.allocUnsafe(size);
  let at = 9 + line.write(json, 9, 'utf8');
  if (raw) {
    for (const r of raw) {
      line[at++] = TAB;
      at += line.write(r, at, 'utf8');
    }
  }
  line[at] = LF;
  line.write(crc32(line.subarray(9, at)).toString(16).padStart(8, '0'), 0, 'latin1');
  line[8] = TAB;
  return line;
}

const TAB = 0x09;
const LF = 0x0a;

/** Decodes a journal line; null when it is torn or its checksum does not match. */
export function decodeLine(line: string): JournalEntry[] | null {
  const tab = line.indexOf('\t');
  if (tab !== 8) return null;
  const rest = line.slice(9);
  if (crc32(rest).toString(16).padStart(8, '0') !== line.slice(0, 8)) return null;
  const [json, ...raw] = rest.split('\t');
  const parsed = JSON.parse(json!) as { w: [Collection, string, Row | null, (number | string[])?][] };
  return parsed.w.map(([collection, id, row, n]): JournalEntry => {
    if (n === undefined) return { collection, id, row };
    if (Array.isArray(n)) {
      if (row === null) throw new Error(`journal line holds a patch without fields (${collection} ${id})`);
      return { collection, id, patch: { set: row, unset: n } };
    }
    const field = RAW_FIELDS[collection];
    const value = raw[n];
    if (row === null || field === undefined || value === undefined) throw new Error(`journal line names a raw field it does not hold (${collection} ${id})`);
    row[field] = value;
    return { collection, id, row };
  });
}
