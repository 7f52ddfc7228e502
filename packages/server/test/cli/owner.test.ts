import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterEach, expect, it } from 'vitest';
import { createLicenseEngine, createSecretBox } from '@svc-licensing/license-engine';
import { migrate } from '../../src/stores/mysql/index.js';
import { openEmbeddedStore } from '../../src/stores/embedded/index.js';
import { resolveMasterKey } from '../../src/master-key.js';
import { cleanEnv, exited, openFolderEngine, runCli, startServe } from '../support/cli-process.js';
import { createTestDatabase, type TestDatabase } from '../support/mysql-database.js';

const dirs: string[] = [];
const children: ChildProcessWithoutNullStreams[] = [];
const dbs: TestDatabase[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  for (const db of dbs.splice(0)) await db.drop();
});

async function dataFolder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-owner-cli-'));
  dirs.push(dir);
  return join(dir, 'data');
}

/** The last stdout line as JSON: what the command promises to print. */
const lastJson = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, any>;

async function postLink(url: string, base: string) {
  const res = await fetch(`${base}${new URL(url).pathname}${new URL(url).search}`, { method: 'POST', redirect: 'manual' });
  await res.text();
  return res;
}

/** The link of the command's text: the line that holds only a URL. */
const linkOf = (stdout: string) => stdout.split('\n').find((line) => /^ {2}https?:\/\/\S+$/.test(line))?.trim();

it('owner sign-in-link says, for a person, whom the link signs in and until when, with a link under the public URL that signs the owner in to the server running on the same data folder, once; --json gives it as one object', async () => {
  const data = await dataFolder();
  const { child, url } = await startServe(['--data', data], { SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_PUBLIC_URL: 'https://licensing.example.test/' });
  children.push(child);
  const { accountId } = JSON.parse(await readFile(join(data, 'initial-account.json'), 'utf8')) as { accountId: string };

  const out = await runCli(['owner', 'sign-in-link', '--account', accountId, '--data', data, '--public-url', 'https://licensing.example.test'], cleanEnv);
  expect(out.stderr).toBe('');
  expect(out.code).toBe(0);
  // Beside the running server the account cannot be read: the text says who checks it, never a null.
  const lines = out.stdout.trimEnd().split('\n');
  expect(lines[0]).toMatch(new RegExp(`^Sign-in link for the owner of account ${accountId}, valid once until \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC \\(15 minutes\\):$`));
  expect(lines.slice(3)).toEqual([
    '',
    'Open it in a browser and press "Sign in".',
    `The server running on this data folder (process ${child.pid}) holds its records, so the account was not looked up here: that server checks it when the link is opened.`,
  ]);
  expect(out.stdout).not.toMatch(/null|accountChecked|ownerEmail|[{}]/);
  const link = linkOf(out.stdout)!;
  expect(link).toMatch(/^https:\/\/licensing\.example\.test\/sign-in\?token=svc_op_/);

  const signedIn = await postLink(link, url);
  expect(signedIn.status).toBe(303);
  const cookie = /^(svc_session=[^;]+)/.exec(signedIn.headers.get('set-cookie') ?? '')![1]!;
  const who = await fetch(`${url}/v1/session`, { headers: { cookie } });
  expect(await who.json()).toMatchObject({ kind: 'session', accountId, role: 'owner' });
  expect((await postLink(link, url)).status).toBe(410);

  // For a script: one JSON object with the same link, and what could not be checked.
  const json = await runCli(['owner', 'sign-in-link', '--account', accountId, '--data', data, '--json'], cleanEnv);
  expect(JSON.parse(json.stdout)).toEqual({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:8787\/sign-in\?token=svc_op_/), accountId, ownerEmail: null, expiresAt: expect.any(String), accountChecked: false });

  // A link for an account that does not exist signs nobody in.
  const stranger = linkOf((await runCli(['owner', 'sign-in-link', '--account', 'acc_nobody', '--data', data], cleanEnv)).stdout)!;
  expect((await postLink(stranger, url)).status).toBe(404);
  child.kill('SIGTERM');
  expect(await exited(child)).toBe(0);

  // With the folder free, the account is checked first and its owner named.
  const checked = await runCli(['owner', 'sign-in-link', '--account', accountId, '--data', data], cleanEnv);
  expect(checked.stdout).toMatch(new RegExp(`^Sign-in link for \\S+@\\S+, the owner of account ${accountId}, valid once until `));
  expect(checked.stdout).not.toContain('holds its records');
  expect(linkOf(checked.stdout)).toMatch(/^http:\/\/127\.0\.0\.1:8787\/sign-in\?token=/);
  expect(lastJson((await runCli(['owner', 'sign-in-link', '--account', accountId, '--data', data, '--json'], cleanEnv)).stdout)).toMatchObject({
    accountChecked: true,
    ownerEmail: expect.stringContaining('@'),
  });
  const missing = await runCli(['owner', 'sign-in-link', '--account', 'acc_nobody', '--data', data], cleanEnv);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain('not found');
});

it('owner reopen-link prints a link that reopens a closed account beside the running server and signs its owner in, once; an open account has nothing to reopen (issue 25)', async () => {
  const data = await dataFolder();
  const created = lastJson((await runCli(['account', 'create', '--name', 'Acme', '--owner-email', 'owner@acme.test', '--data', data], cleanEnv)).stdout);
  const accountId = created.accountId as string;
  const open = await runCli(['owner', 'reopen-link', '--account', accountId, '--data', data], cleanEnv);
  expect(open.code).toBe(1);
  expect(open.stderr).toContain('is open: nothing to reopen');
  const folder = await openFolderEngine(data);
  await folder.engine.closeAccount(accountId); // the reopen link of the closure is lost
  await folder.store.close();

  // With the folder free, the account is read and its owner named.
  const checked = await runCli(['owner', 'reopen-link', '--account', accountId, '--data', data], cleanEnv);
  expect(checked.stderr).toBe('');
  expect(checked.stdout).toMatch(new RegExp(`^Reopen link for owner@acme\\.test, the owner of account ${accountId}, valid once until .+ \\(24 hours, and only within 30 days of the closure\\):`));
  // Beside the running server, which checks the account when the link is used.
  const { child, url } = await startServe(['--data', data], { SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_PUBLIC_URL: 'https://licensing.example.test/' });
  children.push(child);
  const printed = await runCli(['owner', 'reopen-link', '--account', accountId, '--data', data, '--public-url', 'https://licensing.example.test'], cleanEnv);
  expect(printed.code).toBe(0);
  expect(printed.stdout).toContain('holds its records');
  const link = linkOf(printed.stdout)!;
  expect(link).toMatch(/^https:\/\/licensing\.example\.test\/reopen\?token=svc_op_/);
  expect((await postLink(link.replace('/reopen?', '/sign-in?'), url)).status).toBe(404);
  const reopened = await postLink(link, url);
  expect(reopened.status).toBe(303);
  const cookie = /^(svc_session=[^;]+)/.exec(reopened.headers.get('set-cookie') ?? '')![1]!;
  expect(await (await fetch(`${url}/v1/session`, { headers: { cookie } })).json()).toMatchObject({ kind: 'session', accountId, role: 'owner' });
  expect((await postLink(link, url)).status).toBe(410);
  expect(JSON.parse((await runCli(['owner', 'reopen-link', '--account', accountId, '--data', data, '--json'], cleanEnv)).stdout)).toMatchObject({ accountId, accountChecked: false });
  child.kill('SIGTERM');
  expect(await exited(child)).toBe(0);
}, 90_000); // four CLI runs and a server start: on a loaded 2-core machine, more than the default

it('owner sign-in-link and account plan on MySQL; the plan change is audited as account.plan_changed', async () => {
  const db = await createTestDatabase('owner');
  dbs.push(db);
  await migrate(db.url);
  const env = { ...cleanEnv, SVC_MASTER_KEY: randomBytes(32).toString('base64') };
  const created = lastJson((await runCli(['account', 'create', '--name', 'Acme', '--owner-email', 'Owner@Acme.test', '--database', db.url], env)).stdout);
  const link = await runCli(['owner', 'sign-in-link', '--account', created.accountId, '--database', db.url, '--public-url', 'https://l.example.test'], env);
  expect(link.stdout).toContain(`Sign-in link for owner@acme.test, the owner of account ${created.accountId}, valid once until `);
  expect(linkOf(link.stdout)).toMatch(/^https:\/\/l\.example\.test\/sign-in\?token=svc_op_/);
  const json = await runCli(['owner', 'sign-in-link', '--account', created.accountId, '--database', db.url, '--json'], env);
  expect(lastJson(json.stdout)).toMatchObject({ accountChecked: true, ownerEmail: 'owner@acme.test' });

  const plan = await runCli(['account', 'plan', created.accountId, 'pro', '--database', db.url], env);
  expect(plan.stderr).toBe('');
  expect(lastJson(plan.stdout)).toMatchObject({ accountId: created.accountId, plan: 'pro' });
  const events = await fetchEvents(db, created.accountId);
  expect(events).toEqual([expect.objectContaining({ type: 'account.plan_changed', data: { from: 'free', to: 'pro' } })]);
  const unknownPlan = await runCli(['account', 'plan', created.accountId, 'platinum', '--database', db.url], env);
  expect(unknownPlan.code).toBe(1);
  expect(unknownPlan.stderr).toContain('servicePlan must be one of');
  const missingArg = await runCli(['account', 'plan', created.accountId, '--database', db.url], env);
  expect(missingArg.code).toBe(1);
  expect(missingArg.stderr).toContain('<acc_id> <plan>');
});

async function fetchEvents(db: TestDatabase, accountId: string) {
  const rows = await db.admin<{ doc: string }[]>(`SELECT doc FROM \`${db.name}\`.\`audit_events\` WHERE account_id = ?`, [accountId]);
  return rows.map((r) => JSON.parse(r.doc) as { type: string; data: unknown });
}

it('purge deletes the accounts closed more than 30 days ago from a data folder, and leaves the others', async () => {
  const data = await dataFolder();
  // Accounts written by an engine whose clock is 31 days behind: one closed then, one open.
  await openFolderEngine(data).then(({ store }) => store.close()); // creates the folder and its master key
  const { key } = await resolveMasterKey({ fromEnv: undefined, dataDir: data, warn: () => undefined });
  const store = await openEmbeddedStore(data);
  const past = { now: () => Date.now() - 31 * 86_400_000 };
  const engine = createLicenseEngine({ store, secrets: createSecretBox(key), clock: past });
  const closed = await engine.createAccount({ name: 'Gone', ownerEmail: 'gone@vendor.test' });
  await engine.createProduct(closed.account.id, { name: 'Gone Product', keyPrefix: 'GONE' });
  await engine.closeAccount(closed.account.id);
  const kept = await engine.createAccount({ name: 'Kept', ownerEmail: 'kept@vendor.test' });
  await store.close();

  const out = await runCli(['purge', '--data', data], cleanEnv);
  expect(out.stderr).toBe('');
  expect(lastJson(out.stdout)).toEqual({ purged: [closed.account.id] });
  expect(lastJson((await runCli(['purge', '--data', data], cleanEnv)).stdout)).toEqual({ purged: [] });

  const reopened = await openFolderEngine(data);
  try {
    await expect(reopened.engine.getAccount(closed.account.id)).rejects.toMatchObject({ code: 'not_found' });
    expect((await reopened.engine.getAccount(kept.account.id)).name).toBe('Kept');
  } finally {
    await reopened.store.close();
  }
});
