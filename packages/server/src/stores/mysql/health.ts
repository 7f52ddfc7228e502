import type { Connections } from './connection.js';
import { isServerError } from './errors.js';
import type { NameValueRow, Readiness } from './readiness.js';
import { direct } from './statement.js';

const GALERA_STATUS = "SHOW GLOBAL STATUS WHERE `Variable_name` IN ('wsrep_ready', 'wsrep_local_state_comment', 'wsrep_cluster_status')";

/**
 * Readiness for a load balancer: `null` when the database answers a read within `timeoutMs` (on
 * Galera the node must also be `wsrep_ready`, `Synced` and in the Primary component), else the
 * reason it is not ready. Never rejects, never waits longer.
 */
export async function health(connections: Connections, readiness: Readiness, timeoutMs: number): Promise<string | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`the database did not answer within ${timeoutMs} ms`), timeoutMs);
  });
  // Only the error's code: this reason is shown without authentication.
  const answer = check(connections, readiness, timeoutMs).catch(
    (error: unknown) => `the database failed the check (${(error as { code?: string })?.code ?? 'error'})`,
  );
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The check of {@link health}, without its time bound. */
async function check(connections: Connections, readiness: Readiness, timeoutMs: number): Promise<string | null> {
  if (connections.circuit.open) return 'the database is unreachable';
  await readiness.ready();
  const { connection } = await connections.acquire(true, readiness.galera);
  try {
    if (!readiness.galera) {
      await direct(connection, 'query', 'SELECT 1', [], timeoutMs, connections.watch);
      connection.release();
      return null;
    }
    const rows = await direct<NameValueRow[]>(connection, 'query', GALERA_STATUS, [], timeoutMs, connections.watch);
    connection.release();
    const status = Object.fromEntries(rows.map((r) => [r.Variable_name.toLowerCase(), r.Value]));
    if (status['wsrep_ready'] !== 'ON') return 'this Galera node is not ready (wsrep_ready OFF)';
    if (status['wsrep_cluster_status'] !== 'Primary') return `this Galera node is not in the Primary component (${status['wsrep_cluster_status'] ?? 'unknown'})`;
    if (status['wsrep_local_state_comment'] !== 'Synced') return `this Galera node is ${status['wsrep_local_state_comment'] ?? 'not synced'}, not Synced`;
    return null;
  } catch (error) {
    if (isServerError(error)) connection.release();
    else connection.destroy();
    throw error;
  }
}
