// The benchmark's database URLs: BENCH_MYSQL_URL names the server (no database), and may carry
// driver options in its query, e.g. MariaDB's Unix socket on this host:
//
//   BENCH_MYSQL_URL='mysql://root@localhost?socketPath=/run/mysqld/mysqld.sock'
//
// so the database's name goes into the URL's path, not after its query.
import { createConnection } from 'mysql2/promise';

/** The MySQL/MariaDB server the benchmarks use (BENCH_MYSQL_URL; TCP on 127.0.0.1:3306 by default). */
export const MYSQL = process.env['BENCH_MYSQL_URL'] ?? 'mysql://root@127.0.0.1:3306';

/** `server`'s URL for database `name`, its query kept, with `options` (`poolSize=4&...`) added to it. */
export function databaseUrl(server: string, name: string, options = ''): string {
  const url = new URL(server);
  url.pathname = `/${name}`;
  for (const [key, value] of new URLSearchParams(options)) url.searchParams.set(key, value);
  return url.toString();
}

/** Drops the benchmark's databases `names` on `server` (a URL without a database), each if it exists, over one connection. */
export async function dropDatabases(server: string, names: readonly string[]): Promise<void> {
  const admin = await createConnection({ uri: server });
  try {
    for (const name of names) await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
  } finally {
    await admin.end();
  }
}
