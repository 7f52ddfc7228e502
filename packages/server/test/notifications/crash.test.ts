import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { exited, startServe } from '../support/cli-process.js';
import { createTestDatabase } from '../support/mysql-database.js';
import { migrate } from '../../src/stores/mysql/index.js';
import { STORE_KINDS } from '../support/stores.js';
import { createLicense, deliveredLicenses, openStoreAt, prepareAccount, serveWorld, until } from './support/serve-world.js';

/**
 * `kill -9` of a real `svc-licensing serve` while licenses are being created over HTTP and their
 * notifications are due and in flight (the receiver holds each answer a while), then a restart on
 * the same store: every committed license is notified at least once, no notification names a
 * license that is not there (a unit cut off by the kill leaves nothing), and only notifications
 * the receiver had before the kill (in flight, or answered but not yet recorded) come twice.
 */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.each(STORE_KINDS)('kill -9 with notifications due and in flight (%s)', (kind) => {
  it('after a restart every committed change is delivered at least once, nothing else, and only what was in flight twice', async () => {
    const world = await serveWorld();
    cleanups.push(() => world.close());
    let location: { dataDir: string } | { databaseUrl: string };
    if (kind === 'embedded') {
      const dir = await mkdtemp(join(tmpdir(), 'svc-notify-crash-'));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      location = { dataDir: dir };
    } else {
      const db = await createTestDatabase('notify_crash');
      cleanups.push(() => db.drop());
      await migrate(db.url);
      location = { databaseUrl: db.url };
    }
    const setupStore = await openStoreAt(location);
    const account = await prepareAccount(world, setupStore, world.receiver.url('/hooks/crash'));
    await setupStore.close();
    const args = ['--port', '0', '--host', '127.0.0.1', ...('dataDir' in location ? ['--data', location.dataDir] : ['--database', location.databaseUrl])];
    world.receiver.handle = (_request, response) => void setTimeout(() => response.writeHead(204).end(), 150);

    let server: { child: ChildProcessWithoutNullStreams; url: string } = await startServe(args, world.env);
    cleanups.push(async () => {
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
      await exited(server.child);
    });
    const acked: string[] = [];
    let running = true;
    const clients = Array.from({ length: 4 }, async () => {
      while (running) {
        const id = await createLicense(server.url, account.apiKey, account.planId);
        if (id === null) return;
        acked.push(id);
      }
    });
    await until(() => acked.length >= 40 && world.receiver.inFlight > 0 && world.receiver.received.length >= 5, 'licenses created and notifications in flight');
    server.child.kill('SIGKILL');
    await exited(server.child);
    running = false;
    await Promise.all(clients);
    const beforeKill = world.receiver.received.length;

    server = await startServe(args, world.env);
    const url = server.url;
    const listed = async (): Promise<string[]> => {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await fetch(`${url}/v1/licenses${cursor ? `?cursor=${cursor}` : ''}`, { headers: { authorization: `Bearer ${account.apiKey}` } });
        const page = (await res.json()) as { data: { id: string }[]; nextCursor: string | null };
        ids.push(...page.data.map((l) => l.id));
        cursor = page.nextCursor;
      } while (cursor !== null);
      return ids;
    };
    const committed = new Set(await listed());
    await until(() => {
      const delivered = new Set([...deliveredLicenses(world.receiver).values()].map((d) => d.licenseId));
      return [...committed].every((id) => delivered.has(id));
    }, 'every committed license notified', 150_000); // what was in flight at the kill is sent again only once its claim (60 s) has expired
    server.child.kill('SIGTERM');
    await exited(server.child);

    for (const id of acked) expect(committed.has(id)).toBe(true);
    const delivered = deliveredLicenses(world.receiver);
    for (const { licenseId } of delivered.values()) expect(committed.has(licenseId), `notified license ${licenseId} was never committed`).toBe(true);
    const before = deliveredLicenses(world.receiver, beforeKill);
    const twice = [...delivered].filter(([, d]) => d.count > 1);
    for (const [webhookId, d] of twice) {
      expect(before.has(webhookId), `${webhookId} came twice but was not in flight at the kill`).toBe(true);
      expect(d.count).toBe(2);
    }
    expect(world.receiver.received.every((r) => r.verifiedWith.length === 1)).toBe(true);
    process.stdout.write(`notify crash (${kind}): ${committed.size} committed, ${delivered.size} notified, ${twice.length} twice (in flight at the kill)\n`);
  }, 240_000);
});
