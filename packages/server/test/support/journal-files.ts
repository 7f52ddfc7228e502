import { open, readFile } from 'node:fs/promises';

/**
 * A journal segment's lines: its bytes up to the NUL padding the writer leaves after them (segments
 * are zero-filled ahead of the lines, so the file's size is not what the journal holds).
 */
export async function segmentLines(path: string): Promise<Buffer> {
  const raw = await readFile(path);
  let end = raw.length;
  while (end > 0 && raw[end - 1] === 0) end--;
  return raw.subarray(0, end);
}

/** Writes `data` into the file at byte `position` (in place, as the journal's writer does). */
export async function writeAt(path: string, data: Buffer | string, position: number): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    await handle.write(bytes, 0, bytes.length, position);
  } finally {
    await handle.close();
  }
}
