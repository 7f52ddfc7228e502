import { open, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** Lock files this process holds or is taking. */
const held = new Set<string>();

/**
 * One process per data folder: a `lock` file created exclusively, holding the owner's PID. A lock
 * left by a process that no longer runs (killed) is taken over, and so is one carrying this
 * process's own PID that this process does not hold (a container restarted after a crash gets
 * the same PID again).
 */
export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  const path = join(dir, 'lock');
  if (held.has(path)) throw new Error(`the data folder ${dir} is already open in this process`);
  held.add(path); // before any await: a second open in this process fails above
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const handle = await open(path, 'wx', 0o600);
        await handle.writeFile(`${process.pid}\n`);
        await handle.sync();
        await handle.close();
        return async () => {
          held.delete(path);
          await unlink(path).catch(() => undefined);
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const pid = Number.parseInt(await readFile(path, 'utf8').catch(() => ''), 10);
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isRunning(pid)) {
        throw new Error(`the data folder ${dir} is in use by process ${pid} (stop it first)`);
      }
      await unlink(path).catch(() => undefined); // stale: its process is gone
    }
    throw new Error(`could not lock the data folder ${dir}`);
  } catch (error) {
    held.delete(path);
    throw error;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
