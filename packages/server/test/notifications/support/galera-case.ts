import { randomBytes } from 'node:crypto';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { expect, test } from 'vitest';
import { exited, startServe } from '../../support/cli-process.js';
import type { GaleraCluster } from '../../support/galera.js';
import { migrate } from '../../../src/stores/mysql/index.js';
import { createLicense, deliveredLicenses, openStoreAt, prepareAccount, serveWorld } from './serve-world.js';
import { until } from './serve-world.js';

/**
 * Issue 28 on the Galera cluster of stores/galera.test.ts (one cluster per run: a second test file
 * would start a second cluster beside it): three `serve` processes on a database of their own, one
 * per node, each running its dispatcher. Claims of one delivery on two nodes conflict at
 * certification and the loser's unit runs again and finds it taken, so every notification reaches
 * the receiver exactly once.
 */
export function notificationsOnGalera(cluster: () => GaleraCluster): void {
  test('three instances, one per node, deliver each notification to the vendor once', async () => {
    const database = `notify_${randomBytes(5).toString('hex')}`;
    const nodeUrl = (n: number) => `${cluster().servers[n - 1]}/${database}`;
    const world = await serveWorld();
    const servers: { child: ChildProcessWithoutNullStreams; url: string }[] = [];
    try {
      await migrate(nodeUrl(1));
      const store = await openStoreAt({ databaseUrl: nodeUrl(1) });
      const account = await prepareAccount(world, store, world.receiver.url('/hooks/galera'));
      await store.close();
      world.receiver.handle = (_request, response) => void setTimeout(() => response.writeHead(204).end(), 20);
      const redis = ['--redis-url', `redis://127.0.0.1:6379/0?prefix=${database}`];
      servers.push(...(await Promise.all([1, 2, 3].map((n) => startServe(['--database', nodeUrl(n), '--port', '0', '--host', '127.0.0.1', ...redis], world.env)))));
      const failures: string[] = [];
      const created = await Promise.all(Array.from({ length: 90 }, (_, i) => createLicense(servers[i % 3]!.url, account.apiKey, account.planId, failures)));
      expect(failures).toEqual([]);
      expect(created.every((id) => id !== null)).toBe(true);
      await until(() => deliveredLicenses(world.receiver).size === created.length, 'every notification', 120_000);
      await new Promise((resolve) => setTimeout(resolve, 2000)); // more polls of all three dispatchers: nothing more comes
      const delivered = deliveredLicenses(world.receiver);
      expect([...delivered.values()].map((d) => d.licenseId).sort()).toEqual([...(created as string[])].sort());
      expect([...delivered.values()].filter((d) => d.count > 1)).toEqual([]);
      expect(world.receiver.received).toHaveLength(created.length);
    } finally {
      for (const { child } of servers) {
        child.kill('SIGTERM');
        await exited(child);
      }
      await cluster().sql(1, `DROP DATABASE IF EXISTS \`${database}\``).catch(() => undefined);
      await world.close();
    }
  }, 240_000);
}
