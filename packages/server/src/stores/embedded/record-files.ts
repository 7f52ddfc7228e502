import { open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Storage } from 'unstorage';
import { storeSchema } from '@svc-licensing/license-engine';
import type { Collection } from '@svc-licensing/license-engine';
import type { Change, Row } from './tables.js';

/**
 * Checkpointed records in unstorage: one key per record, `<collection>:<id>`. IDs made only of
 * letters, digits, `_` and `-` are used as they are; any other ID (counter keys hold `:`) is
 * written as `~` + its base64url, since unstorage reads `:` and `/` as separators and drops `?...`.
 */
const PLAIN_ID = /^[A-Za-z0-9_-]{1,200}$/;
const CHUNK = 256;

export const recordKey = (collection: Collection, id: string): string =>
  `${collection}:${PLAIN_ID.test(id) ? id : `~${Buffer.from(id, 'utf8').toString('base64url')}`}`;

const isCollection = (name: string): name is Collection => Object.hasOwn(storeSchema, name);

/** What `loadRecords` found: readable records, and keys whose content was cut short by a crash. */
export interface LoadedRecords {
  records: Change[];
  torn: string[];
}

/** Reads every record key of `storage`. Keys outside the known collections are ignored. */
export async function loadRecords(storage: Storage): Promise<LoadedRecords> {
  const keys = (await storage.getKeys()).filter((key) => isCollection(key.split(':')[0]!));
  const records: Change[] = [];
  const torn: string[] = [];
  for (let i = 0; i < keys.length; i += CHUNK) {
    const chunk = keys.slice(i, i + CHUNK);
    const values = await Promise.all(chunk.map((key) => storage.getItem(key)));
    for (const [j, value] of values.entries()) {
      const key = chunk[j]!;
      const row = value as Row | null;
      if (row === null || typeof row !== 'object' || typeof row.id !== 'string' || recordKey(key.split(':')[0] as Collection, row.id) !== key) {
        // unstorage's fs driver writes in place: a crash mid-write leaves a partial file. The
        // journal still holds that record (segments are deleted only after a full checkpoint).
        torn.push(key);
        continue;
      }
      records.push({ collection: key.split(':')[0] as Collection, id: row.id, row });
    }
  }
  return { records, torn };
}

/**
 * Writes record images (null deletes). With `syncBase` (the fs driver's base folder), every
 * written file and every touched folder is then fsynced, so a power loss after the journal
 * segments are deleted loses nothing either.
 */
export async function writeRecords(storage: Storage, changes: readonly Change[], syncBase?: string): Promise<void> {
  for (let i = 0; i < changes.length; i += CHUNK) {
    await Promise.all(
      changes.slice(i, i + CHUNK).map((c) => {
        const key = recordKey(c.collection, c.id);
        return c.row ? storage.setItem(key, JSON.stringify(c.row)) : storage.removeItem(key);
      }),
    );
  }
  if (syncBase === undefined) return;
  const files = changes.filter((c) => c.row).map((c) => join(syncBase, ...recordKey(c.collection, c.id).split(':')));
  const folders = new Set(changes.map((c) => dirname(join(syncBase, ...recordKey(c.collection, c.id).split(':')))));
  const paths = [...files, ...folders];
  for (let i = 0; i < paths.length; i += CHUNK) {
    await Promise.all(paths.slice(i, i + CHUNK).map(syncPath));
  }
}

async function syncPath(path: string): Promise<void> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // a folder never created (only deletes)
    throw error;
  }
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
