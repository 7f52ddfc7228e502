import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createConnection } from 'mysql2/promise';

const run = promisify(execFile);
const scripts = fileURLToPath(new URL('../../../../scripts/', import.meta.url));

/**
 * A real 3-node MariaDB Galera cluster on loopback, started with `scripts/galera-start.sh` (Debian's
 * mariadb-server and galera-4; `.ci/run` installs them) in a folder and on ports of its own
 * (client ports 3341 to 3372, group ports 4710 to 5092), and
 * stopped with `scripts/galera-stop.sh`. `SVC_TEST_GALERA_DIR` and `SVC_TEST_GALERA_PORT_BASE`
 * reuse a cluster already started by the script (it is then left running).
 */
export interface GaleraCluster {
  /** `mysql://root@127.0.0.1:<port>` of each node (no database), node 1 first. */
  servers: string[];
  /** Runs one statement on node `n` (1-based) as root, after the node applied every earlier write set. */
  sql<T = unknown>(n: number, statement: string, values?: unknown[]): Promise<T>;
  /** `kill -9` of node `n`'s mariadbd. */
  kill(n: number): Promise<void>;
  /** Starts the nodes that are down and waits until all three are Synced again. */
  heal(): Promise<void>;
  stop(): Promise<void>;
}

export async function startGalera(): Promise<GaleraCluster> {
  const reuse = process.env['SVC_TEST_GALERA_DIR'];
  const dir = reuse ?? `/tmp/svc-galera-test-${process.pid}`;
  // Ports of their own per run (one of ten slots by process id), so a node left over by a run
  // that was killed cannot join the next run's cluster.
  const slot = process.pid % 10;
  const portBase = Number(process.env['SVC_TEST_GALERA_PORT_BASE'] ?? (reuse ? 3310 : 3340 + 3 * slot));
  const groupBase = reuse ? 4600 : 4700 + 40 * slot;
  const env = { ...process.env, GALERA_DIR: dir, GALERA_PORT_BASE: String(portBase), GALERA_GROUP_BASE: String(groupBase) };
  const start = () => run('bash', [`${scripts}galera-start.sh`], { env, timeout: 240_000 });
  await start();
  const ports = [1, 2, 3].map((n) => portBase + n);
  const servers = ports.map((p) => `mysql://root@127.0.0.1:${p}`);
  return {
    servers,
    async sql<T>(n: number, statement: string, values: unknown[] = []) {
      const connection = await createConnection({ uri: servers[n - 1]!, connectTimeout: 2000 });
      try {
        // Read what the cluster committed before this statement, not only what this node applied.
        await connection.query('SET SESSION wsrep_sync_wait = 1');
        const [rows] = await connection.query(statement, values);
        return rows as T;
      } finally {
        await connection.end();
      }
    },
    async kill(n) {
      const pid = Number(readFileSync(`${dir}/node${n}/mariadbd.pid`, 'utf8').trim());
      process.kill(pid, 'SIGKILL');
      for (let i = 0; i < 100; i++) {
        try {
          process.kill(pid, 0);
        } catch {
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async heal() {
      await start();
    },
    async stop() {
      if (!reuse) await run('bash', [`${scripts}galera-stop.sh`, '--clean'], { env, timeout: 120_000 });
    },
  };
}
