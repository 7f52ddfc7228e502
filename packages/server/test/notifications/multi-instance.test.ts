import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterEach, expect, it } from 'vitest';
import { exited, startServe } from '../support/cli-process.js';
import { createTestDatabase } from '../support/mysql-database.js';
import { migrate } from '../../src/stores/mysql/index.js';
import { createLicense, deliveredLicenses, openStoreAt, prepareAccount, serveWorld, until } from './support/serve-world.js';

/**
 * Two real `serve` processes on one MariaDB database, each running its dispatcher: licenses are
 * created on both, and every notification reaches the receiver exactly once (no crash in this run:
 * the store's claims keep the dispatchers from sending one delivery twice).
 */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it('two server processes on one MariaDB deliver each notification once', async () => {
  const world = await serveWorld();
  cleanups.push(() => world.close());
  const db = await createTestDatabase('notify_multi');
  cleanups.push(() => db.drop());
  await migrate(db.url);
  const store = await openStoreAt({ databaseUrl: db.url });
  const account = await prepareAccount(world, store, world.receiver.url('/hooks/multi'));
  await store.close();
  world.receiver.handle = (_request, response) => void setTimeout(() => response.writeHead(204).end(), 20);
  const servers: { child: ChildProcessWithoutNullStreams; url: string }[] = await Promise.all(
    [0, 1].map(() => startServe(['--database', db.url, '--port', '0', '--host', '127.0.0.1'], world.env)),
  );
  cleanups.push(async () => {
    for (const { child } of servers) {
      child.kill('SIGTERM');
      await exited(child);
    }
  });
  const created = (await Promise.all(Array.from({ length: 80 }, (_, i) => createLicense(servers[i % 2]!.url, account.apiKey, account.planId)))) as string[];
  expect(created.every((id) => id !== null)).toBe(true);
  await until(() => deliveredLicenses(world.receiver).size === created.length, 'every notification');
  await new Promise((resolve) => setTimeout(resolve, 1500)); // a second poll of both dispatchers: nothing more comes
  const delivered = deliveredLicenses(world.receiver);
  expect([...delivered.values()].map((d) => d.licenseId).sort()).toEqual([...created].sort());
  expect([...delivered.values()].filter((d) => d.count > 1)).toEqual([]);
  expect(world.receiver.received).toHaveLength(created.length);
}, 180_000);
