import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { LicenseStorage } from './storage.js';

/**
 * Storage in one file, for Node and the Electron main process (for example
 * `path.join(app.getPath('userData'), 'license.json')`). Node only: import it from
 * `@svc-licensing/verifier/node`.
 *
 * Writes are atomic and durable: the text goes to a temporary file in the same folder, is flushed
 * to disk (`fsync`), then renamed over the target, and the folder is flushed; a crash at any moment
 * leaves either the old document or the new one. The file is created with mode 0600 (it holds the
 * license key). Missing parent folders are created. Two processes writing the same file are not
 * coordinated: the last rename wins.
 *
 * @example
 * ```ts
 * import { createFileStorage } from '@svc-licensing/verifier/node';
 * const storage = createFileStorage(join(app.getPath('userData'), 'license.json'));
 * ```
 */
/* @__NO_SIDE_EFFECTS__ */
export function createFileStorage(path: string): LicenseStorage {
  if (typeof path !== 'string' || path === '') throw new TypeError('createFileStorage: expected a file path');
  const folder = dirname(path);
  return {
    async read() {
      try {
        return await readFile(path, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
    async write(text: string) {
      await mkdir(folder, { recursive: true });
      const temporary = join(folder, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
      const handle = await open(temporary, 'wx', 0o600);
      try {
        await handle.writeFile(text, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      try {
        await rename(temporary, path);
      } catch (error) {
        await unlink(temporary).catch(() => undefined);
        throw error;
      }
      await syncFolder(folder);
    },
  };
}

/** Flushes the folder entry of the rename; not possible on Windows, where rename is already durable enough. */
async function syncFolder(folder: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
