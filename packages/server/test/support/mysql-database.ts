import { randomBytes } from 'node:crypto';
import { createConnection, escapeId } from 'mysql2/promise';

/** The MySQL/MariaDB server the tests use (root, empty password), without a database. */
export const mysqlServerUrl = process.env['SVC_TEST_MYSQL_URL'] ?? 'mysql://root@127.0.0.1:3306';

/** A database of its own for one test run, so parallel runs never see each other's rows. */
export interface TestDatabase {
  name: string;
  /** `mysql://root@127.0.0.1:3306/<name>` */
  url: string;
  /** Runs a statement as the admin user (for cutting connections, inspecting the schema). */
  admin<T = unknown>(sql: string, values?: unknown[]): Promise<T>;
  drop(): Promise<void>;
}

/** Creates an empty database `test_<tag>_<random>`; `drop()` removes it. */
export async function createTestDatabase(tag = 'store'): Promise<TestDatabase> {
  const name = `test_${tag}_${randomBytes(6).toString('hex')}`;
  const admin = await createConnection({ uri: mysqlServerUrl });
  await admin.query(`CREATE DATABASE ${escapeId(name)} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  return {
    name,
    url: `${mysqlServerUrl}/${name}`,
    async admin<T>(sql: string, values: unknown[] = []) {
      const [rows] = await admin.query(sql, values);
      return rows as T;
    },
    async drop() {
      try {
        await admin.query(`DROP DATABASE IF EXISTS ${escapeId(name)}`);
      } finally {
        await admin.end();
      }
    },
  };
}
