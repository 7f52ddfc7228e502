// A CPU profile of the dispatching process alone (the queueing before it left out): the dispatch
// part of the notification benchmark on one store, profiled with the inspector from the
// dispatcher's start to the last recorded delivery, summarized per delivery by function and package.
//   npx tsx notify/profile.ts embedded|mysql [deliveries]   (BENCH_MYSQL_URL as in run.ts)
// The raw profile is kept as notify-dispatch-<store>.cpuprofile in the OS temp folder.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '@svc-licensing/license-engine';
import { openEmbeddedStore } from '../../packages/server/src/stores/embedded/index.js';
import { createMySqlStore } from '../../packages/server/src/stores/mysql/index.js';
import { databasePidOf } from '../http/cpu.js';
import { report, summarize } from '../http/profile-summary.js';
import type { CpuProfile } from '../http/profile-summary.js';
import { measureDispatch } from './dispatch.js';
import { startReceiverProcess } from './receiver-process.js';
import { MYSQL, databaseUrl, dropDatabases } from '../http/database-url.js';

const which = process.argv[2] === 'mysql' ? 'mysql' : 'embedded';
const n = Number(process.argv[3] ?? 3000);

const receiver = await startReceiverProcess();
const dir = await mkdtemp(join(tmpdir(), 'svc-bench-notify-profile-'));
const database = `bench_notify_profile_${randomBytes(5).toString('hex')}`;
let store: Store & { ready?: () => Promise<void> };
if (which === 'mysql') {
  const mysql = createMySqlStore(databaseUrl(MYSQL, database));
  await mysql.ready();
  store = mysql;
} else store = await openEmbeddedStore(join(dir, 'store'));
const session = new Session();
session.connect();
let profile: CpuProfile | null = null;
try {
  const dbPids = which === 'mysql' ? [await databasePidOf(MYSQL)].filter((p): p is number => p !== null) : [];
  const result = await measureDispatch(store, receiver, n, dbPids, {
    async onDispatch(phase) {
      if (phase === 'start') {
        await session.post('Profiler.enable');
        await session.post('Profiler.start');
      } else profile = (await session.post('Profiler.stop')).profile as unknown as CpuProfile;
    },
  });
  process.stderr.write(`${JSON.stringify(result)}\n`);
  if (profile) {
    const file = join(tmpdir(), `notify-dispatch-${which}.cpuprofile`);
    await writeFile(file, JSON.stringify(profile));
    console.log(`${file}\n${report(summarize(profile), n)}`);
  }
} finally {
  session.disconnect();
  await store.close();
  await receiver.stop();
  await rm(dir, { recursive: true, force: true });
  if (which === 'mysql') {
    await dropDatabases(MYSQL, [database]);
  }
}
