// Where the benchmarks' servers write their key e-mails (`serve --outbox <folder>`, the file
// mail transport that stands in for an SMTP relay). Creating and renaming thousands of small
// files costs the server's libuv pool 35 to 260 µs per file on this machine's ext4 root (it
// varies with how many files were just deleted there) and about 9 µs on tmpfs, a cost both
// stores pay alike that is the file system's, not the store's (issue 30, RESULTS.md).
//
// BENCH_OUTBOX_DIR=<folder>: the outboxes of http/ab.ts and http/profile.ts go under it (e.g.
// /dev/shm for tmpfs); unset, they stay in each run's folder under os.tmpdir(), where every
// recorded figure had them. The default is kept on purpose: on the 2-vCPU Xeon, tmpfs sped up the
// embedded store more than MariaDB (webhook ingest 0.561 against 0.581 on /tmp, RESULTS.md).
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The folder under which the outboxes are made: BENCH_OUTBOX_DIR, or null for each script's own place. */
export const outboxRoot: string | null = process.env['BENCH_OUTBOX_DIR'] || null;

/**
 * A new, empty folder for one server's outbox: under `root` (default BENCH_OUTBOX_DIR) when set,
 * else under `fallback` (the script's own working folder, or os.tmpdir()). The caller removes it.
 */
export async function outboxFolder(label: string, fallback: string = tmpdir(), root: string | null = outboxRoot): Promise<string> {
  return mkdtemp(join(root ?? fallback, `svc-outbox-${label}-`));
}
