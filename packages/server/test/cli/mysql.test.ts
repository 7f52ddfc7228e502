import { randomBytes } from 'node:crypto';
import { afterEach, expect, it } from 'vitest';
import { createIdGenerator, createLicenseEngine, createSecretBox, cryptoRandom, systemClock } from '@svc-licensing/license-engine';
import { createMySqlStore } from '../../src/stores/mysql/index.js';
import { createTestDatabase } from '../support/mysql-database.js';
import type { TestDatabase } from '../support/mysql-database.js';
import { cleanEnv, runCli } from '../support/cli-process.js';

let db: TestDatabase | null = null;
afterEach(async () => {
  await db?.drop();
  db = null;
});

it('migrates a MySQL database, then creates an account there whose key works with the same SVC_MASTER_KEY', async () => {
  db = await createTestDatabase('cli');
  const migrated = await runCli(['migrate', '--database', db.url], cleanEnv);
  expect(migrated.code).toBe(0);
  const { applied, version } = JSON.parse(migrated.stdout) as { applied: number[]; version: number };
  expect(applied.length).toBeGreaterThan(0);
  expect(JSON.parse((await runCli(['migrate'], { ...cleanEnv, SVC_DATABASE_URL: db.url })).stdout)).toEqual({ applied: [], version });

  const masterKey = randomBytes(32);
  const created = await runCli(['account', 'create', '--name', 'Sql Co', '--owner-email', 'o@sql.test', '--database', db.url], {
    ...cleanEnv,
    SVC_MASTER_KEY: masterKey.toString('base64'),
  });
  expect(created.code).toBe(0);
  expect(created.stderr).toBe(''); // no key generated, no warning
  const { accountId, apiKey } = JSON.parse(created.stdout) as { accountId: string; apiKey: string };

  const store = createMySqlStore(db.url);
  try {
    const engine = createLicenseEngine({
      store,
      clock: systemClock,
      random: cryptoRandom,
      ids: createIdGenerator({ clock: systemClock, random: cryptoRandom }),
      secrets: createSecretBox(new Uint8Array(masterKey)),
    });
    expect(await engine.authenticate(apiKey)).toMatchObject({ accountId });
  } finally {
    await store.close();
  }
});

it('refuses a database without SVC_MASTER_KEY before connecting, and reports an unreachable database', async () => {
  const noKey = await runCli(['account', 'create', '--name', 'A', '--owner-email', 'a@a.test', '--database', 'mysql://root@127.0.0.1:3306/never_created'], cleanEnv);
  expect(noKey.code).toBe(1);
  expect(noKey.stderr).toContain('SVC_MASTER_KEY is required');

  const down = await runCli(['migrate', '--database', 'mysql://root:secret@127.0.0.1:1/x'], cleanEnv);
  expect(down.code).toBe(1);
  expect(down.stderr).toMatch(/^error: .*unreachable/);
  expect(down.stderr).not.toContain('secret');
});

it('refuses to serve with a master key that cannot decrypt the stored secrets, naming the master key', async () => {
  db = await createTestDatabase('cli');
  const rightKey = randomBytes(32);
  const store = createMySqlStore(db.url);
  try {
    const engine = createLicenseEngine({ store, secrets: createSecretBox(new Uint8Array(rightKey)) });
    const { account } = await engine.createAccount({ name: 'Keyed', ownerEmail: 'o@keyed.test' });
    await engine.createProduct(account.id, { name: 'Keyed App', keyPrefix: 'KEY-' });
  } finally {
    await store.close();
  }
  const wrong = await runCli(['serve', '--database', db.url, '--port', '0'], { ...cleanEnv, SVC_MASTER_KEY: randomBytes(32).toString('base64') });
  expect(wrong.code).toBe(1);
  expect(wrong.stderr).toMatch(/^error: the master key \(SVC_MASTER_KEY\) cannot decrypt the stored secrets/);
  expect(wrong.stdout).not.toContain('listening');
});
