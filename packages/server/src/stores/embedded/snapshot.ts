import { createHash } from 'node:crypto';
import { open, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Storage } from 'unstorage';
import { storeSchema } from '@svc-licensing/license-engine';
import type { Collection } from '@svc-licensing/license-engine';
import { RAW_FIELDS, rawSafe } from './journal-line.js';
import { syncDir } from './journal.js';
import type { Row } from './tables.js';

/**
 * Snapshots in unstorage: every record at one moment, as generation `<gen>` under
 * `snapshots:<gen>:` — parts of at most `PART_SIZE` records of one collection (JSON arrays),
 * then a manifest listing the parts with their SHA-256. unstorage's fs driver writes files in
 * place, so a snapshot counts only when its manifest parses and every part matches its hash;
 * the previous generation and its journal segments stay until the new one is complete.
 *
 * A part whose records are those of the previous snapshot's part at the same place, none written
 * since that snapshot's image was taken (the store tracks the ids it writes), is not written again:
 * the new manifest names the earlier part's key, which cleanup keeps. Only ids are kept for this,
 * never the records, so a replaced record is not held in memory. Records that do not change (audit
 * events, delivered notifications kept 30 days with their bodies) are thus written once or twice,
 * not into every snapshot.
 *
 * A part of a collection with a raw field (a notification's body, JSON text) holds it unescaped, as
 * the journal does: the JSON array with that field replaced by its number n, then for each raw
 * field TAB and the string as it is (JSON's output never holds a TAB, so a part with one is of this
 * form). A body that cannot go raw (`rawSafe`) stays a string in the record.
 */
const PART_SIZE = 5000;
const PREFIX = 'snapshots';

export interface Manifest {
  v: 1;
  gen: number;
  /** The first journal segment NOT contained in this snapshot: replay starts there. */
  segment: number;
  parts: { key: string; collection: Collection; count: number; sha256: string }[];
}

/** A part of a written or loaded snapshot, with the ids of its records in order (for the next snapshot to reuse). */
export type SnapshotPart = Manifest['parts'][number] & { ids: readonly string[]; bytes: number };

/** A loaded snapshot: its manifest and its records. */
export interface Snapshot {
  manifest: Manifest;
  rows: [Collection, Row][];
  /** Its parts with their records, in the manifest's order. */
  parts: SnapshotPart[];
  /** Bytes of its parts: the next checkpoint waits for a journal about this large. */
  bytes: number;
}

const genKey = (gen: number): string => `${PREFIX}:${String(gen).padStart(12, '0')}`;
const sha256 = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');
const isCollection = (name: unknown): name is Collection => typeof name === 'string' && Object.hasOwn(storeSchema, name);

async function readRaw(storage: Storage, key: string): Promise<Buffer | null> {
  const value = await storage.getItemRaw(key);
  if (value === null || value === undefined) return null;
  return Buffer.from(value as Uint8Array);
}

/** A part's bytes: the records' JSON, raw fields after it (see above). */
function encodePart(collection: Collection, rows: readonly Row[]): Buffer {
  const field = RAW_FIELDS[collection];
  if (field === undefined) return Buffer.from(JSON.stringify(rows), 'utf8');
  const raw: string[] = [];
  const records = rows.map((row) => {
    const value = row[field];
    if (typeof value !== 'string' || !rawSafe(value)) return row;
    raw.push(value);
    return { ...row, [field]: raw.length - 1 };
  });
  const json = JSON.stringify(records);
  return Buffer.from(raw.length === 0 ? json : `${json}\t${raw.join('\t')}`, 'utf8');
}

/** The records of a part's bytes (either form). */
function decodePart(collection: Collection, data: Buffer): Row[] {
  const text = data.toString('utf8');
  if (!text.includes('\t')) return JSON.parse(text) as Row[];
  const [json, ...raw] = text.split('\t');
  const field = RAW_FIELDS[collection];
  const rows = JSON.parse(json!) as Row[];
  for (const row of rows) {
    const n = field === undefined ? undefined : row[field];
    if (typeof n !== 'number') continue;
    if (raw[n] === undefined) throw new Error(`snapshot part of ${collection} names a raw field it does not hold (${row.id})`);
    row[field!] = raw[n];
  }
  return rows;
}

async function tryLoad(storage: Storage, gen: number): Promise<Snapshot | null> {
  const raw = await readRaw(storage, `${genKey(gen)}:manifest`);
  if (!raw) return null;
  let manifest: Manifest;
  try {
    manifest = JSON.parse(raw.toString('utf8')) as Manifest;
  } catch {
    return null; // cut short by a crash: never completed
  }
  if (manifest.v !== 1 || manifest.gen !== gen || !Array.isArray(manifest.parts)) return null;
  const rows: [Collection, Row][] = [];
  const parts: SnapshotPart[] = [];
  let bytes = 0;
  for (const part of manifest.parts) {
    const data = await readRaw(storage, part.key);
    if (!data || sha256(data) !== part.sha256 || !isCollection(part.collection)) return null;
    bytes += data.length;
    const records = decodePart(part.collection, data);
    for (const row of records) rows.push([part.collection, row]);
    parts.push({ ...part, ids: records.map((row) => row.id), bytes: data.length });
  }
  return { manifest, rows, parts, bytes };
}

/** Generations present in `storage`, newest first. */
async function generations(storage: Storage): Promise<number[]> {
  const gens = new Set<number>();
  for (const key of await storage.getKeys(PREFIX)) {
    const gen = /^snapshots:(\d{12}):/.exec(key)?.[1];
    if (gen) gens.add(Number(gen));
  }
  return [...gens].sort((a, b) => b - a);
}

/** The newest complete snapshot, or null when there is none yet. */
export async function loadSnapshot(storage: Storage): Promise<Snapshot | null> {
  for (const gen of await generations(storage)) {
    const snapshot = await tryLoad(storage, gen);
    if (snapshot) return snapshot;
  }
  return null;
}

/** Whether `rows` are the records of `part` in its order, none of them written since (`changed`). */
const unchanged = (part: SnapshotPart, rows: readonly Row[], changed: ReadonlySet<string> | undefined): boolean =>
  part.ids.length === rows.length && rows.every((row, i) => row.id === part.ids[i] && !changed?.has(row.id));

/**
 * Writes `rows` (a consistent image: records are immutable objects) as generation `gen`, manifest
 * last. A part equal to `previous`' part at the same place (the snapshot the store holds now),
 * none of its ids in `changed` (written since `previous`' image), is named again instead of written. With `syncBase` (the fs driver's base folder) the files and
 * folders are fsynced before it resolves, so the journal segments before `segment` may then be
 * deleted. Resolves with the snapshot's size (reused parts included) and its parts.
 */
export async function writeSnapshot(
  storage: Storage,
  image: ReadonlyMap<Collection, readonly Row[]>,
  gen: number,
  segment: number,
  syncBase?: string,
  previous: readonly SnapshotPart[] = [],
  changed: ReadonlyMap<Collection, ReadonlySet<string>> = new Map(),
): Promise<{ bytes: number; parts: SnapshotPart[] }> {
  const base = genKey(gen);
  const manifest: Manifest = { v: 1, gen, segment, parts: [] };
  const parts: SnapshotPart[] = [];
  const written: string[] = [];
  let bytes = 0;
  for (const [collection, rows] of image) {
    const earlier = previous.filter((part) => part.collection === collection);
    for (let i = 0, n = 0; i < rows.length; i += PART_SIZE, n++) {
      const chunk = rows.slice(i, i + PART_SIZE);
      const same = earlier[n];
      let part: SnapshotPart;
      if (same && unchanged(same, chunk, changed.get(collection))) part = same;
      else {
        const data = encodePart(collection, chunk);
        const key = `${base}:${collection}-${n}`;
        await storage.setItemRaw(key, data);
        written.push(key);
        part = { key, collection, count: chunk.length, sha256: sha256(data), ids: chunk.map((row) => row.id), bytes: data.length };
        await yieldToEventLoop(); // let requests through between parts
      }
      manifest.parts.push({ key: part.key, collection, count: part.count, sha256: part.sha256 });
      parts.push(part);
      bytes += part.bytes;
    }
  }
  const manifestKey = `${base}:manifest`;
  await storage.setItemRaw(manifestKey, Buffer.from(JSON.stringify(manifest), 'utf8'));
  if (syncBase !== undefined) {
    const path = (key: string) => join(syncBase, ...key.split(':'));
    for (const key of written) await syncPath(path(key)); // reused parts were synced when written
    await syncPath(path(manifestKey));
    await syncDir(path(base));
    await syncDir(join(syncBase, PREFIX));
  }
  return { bytes, parts };
}

/**
 * Deletes every generation older than `gen` (and, on the fs driver, its folder, also one a kill
 * left empty), except the parts in `keep` (those generation `gen` names again) and their folders.
 */
export async function removeSnapshotsBefore(storage: Storage, gen: number, syncBase?: string, keep: ReadonlySet<string> = new Set()): Promise<void> {
  const old = new Set<string>();
  const kept = new Set<string>();
  for (const key of await storage.getKeys(PREFIX)) {
    const g = /^snapshots:(\d{12}):/.exec(key)?.[1];
    if (!g || Number(g) >= gen) continue;
    if (keep.has(key)) kept.add(g);
    else {
      await storage.removeItem(key);
      old.add(g);
    }
  }
  for (const g of kept) old.delete(g);
  if (syncBase === undefined) return;
  // Also the folders a kill left empty (their files were removed, the folder was not): no key names them.
  let folders: string[] = [];
  try {
    folders = await readdir(join(syncBase, PREFIX));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  for (const name of folders) if (/^\d{12}$/.test(name) && Number(name) < gen && !kept.has(name)) old.add(name);
  for (const g of old) await rm(join(syncBase, PREFIX, g), { recursive: true, force: true });
}

async function syncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
