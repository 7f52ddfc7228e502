// CPU accounting of the benchmark's processes (Linux `/proc`), shared by run.ts and count-statements.ts.
import { readFileSync } from 'node:fs';
import { createConnection } from 'mysql2/promise';

/** CPU seconds a process has used so far (Linux), or null elsewhere. */
export function cpuSeconds(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}
/** The pid of the mariadbd behind `url` (from its pid file), for its CPU share; null when unknown. */
export async function databasePidOf(url: string): Promise<number | null> {
  try {
    const db = await createConnection({ uri: url });
    try {
      const [rows] = await db.query('SELECT @@pid_file AS f');
      return Number(readFileSync((rows as { f: string }[])[0]!.f, 'utf8').trim()) || null;
    } finally {
      await db.end();
    }
  } catch {
    return null;
  }
}
