#!/usr/bin/env node
/**
 * `svc-licensing` (`npx -y pnpm@10.34.9 svc` at the repository root): runs the licensing server and its operations.
 *
 *   svc-licensing serve [--port 8787] [--host 127.0.0.1] [--data ./data | --database <url>] [--public-url <url>] [--redis-url <url>] [--trust-proxy]
 *                       [--account-name <name> --owner-email <email>]  (the first account of a new data folder)
 *   svc-licensing account create --name <name> --owner-email <email> [--data <dir> | --database <url>]
 *   svc-licensing account import --file <export> --keys <key export> [--keys ...] (--data <dir> | --database <url>)
 *   svc-licensing migrate --database <url>
 *   svc-licensing owner sign-in-link --account <acc_id> [--data <dir> | --database <url>] [--public-url <url>] [--json]
 *   svc-licensing owner reopen-link --account <acc_id> [--data <dir> | --database <url>] [--public-url <url>] [--json]
 *   svc-licensing account plan <acc_id> <plan> [--data <dir> | --database <url>]
 *   svc-licensing purge [--data <dir> | --database <url>]
 *
 * Every option can also come from its environment variable (see `svc-licensing help`).
 */
import { parseArgs } from 'node:util';
import type { LicenseEngine, Store } from '@svc-licensing/license-engine';
import { OPERATOR_ACTOR } from '@svc-licensing/license-engine';
import { ConfigError, MASTER_KEY_ENV, chooseStore, optionValue, optionValues, options, requiredValue } from './config.js';
import { readAccountExportFile, readKeyExportFile } from './account-import-file.js';
import type { Env, OptionName, OptionSpec } from './config.js';
import { openEngine } from './cli-engine.js';
import { serve } from './cli-serve.js';
import { ownerReopenLink, ownerSignInLink } from './cli-sign-in-link.js';
import { purgeNow } from './purge-job.js';
import { migrateDatabase } from './stores/index.js';

interface Command {
  options: OptionName[];
  /** Names of the positional arguments, in order (all required). */
  positionals?: string[];
  summary: string;
  run: (flags: Record<string, unknown>, env: Env, args: string[]) => Promise<void>;
}

const commands: Record<string, Command> = {
  serve: {
    options: [
      'port', 'host', 'data', 'database', 'publicUrl', 'rateLimitVendor', 'rateLimitClientKey', 'rateLimitClientIp', 'trustProxy', 'sweepLeases',
      'redisUrl', 'smtpUrl', 'mailFrom', 'outbox', 'providerAApiUrl', 'providerAApiUrlLive', 'providerAApiUrlSandbox', 'dnsServer', 'mailSpf', 'notifyAllow',
      'accountName', 'ownerEmail',
    ],
    summary: 'start the HTTP server',
    run: serve,
  },
  'account create': {
    options: ['name', 'ownerEmail', 'servicePlan', 'data', 'database'],
    summary: 'create an account and its first API key; prints {"accountId","apiKey",...} as JSON',
    run: createAccount,
  },
  'account import': {
    options: ['file', 'keys', 'data', 'database'],
    summary: 'create an account from an account export and the key export of each of its products, in one transaction; prints {"accountId","apiKey",...}',
    run: importAccount,
  },
  'account plan': {
    options: ['data', 'database'],
    positionals: ['acc_id', 'plan'],
    summary: "change an account's service plan (audited as account.plan_changed); prints the account as JSON",
    run: changePlan,
  },
  'owner sign-in-link': {
    options: ['account', 'data', 'database', 'publicUrl', 'host', 'port', 'json'],
    summary: "print a one-time sign-in link (15 minutes) for the account's owner, and whom it signs in; works beside a running server",
    run: (flags, env) => ownerSignInLink(flags, env, (accountId) => withEngine('owner sign-in-link', flags, env, (engine) => engine.getAccount(accountId))),
  },
  'owner reopen-link': {
    options: ['account', 'data', 'database', 'publicUrl', 'host', 'port', 'json'],
    summary: "print a one-time link (24 hours) that reopens a closed account, within 30 days of its closure, and signs its owner in",
    run: (flags, env) => ownerReopenLink(flags, env, (accountId) => withEngine('owner reopen-link', flags, env, (engine) => engine.getAccount(accountId))),
  },
  purge: {
    options: ['data', 'database'],
    summary: 'delete every record of the accounts closed more than 30 days ago (the server also does it at start and daily)',
    run: purge,
  },
  migrate: { options: ['database'], summary: 'bring a MySQL/MariaDB database to the current schema', run: migrate },
};

function help(): string {
  const all = Object.values(commands).flatMap((c) => c.options.map((o) => options[o]));
  const flagWidth = Math.max(...all.map((o) => o.flag.length)) + 4;
  const envWidth = Math.max(...all.map((o) => o.env.length)) + 2;
  const lines = ['Usage: svc-licensing <command> [options]', '', 'Commands (every option also from its environment variable):'];
  for (const [name, command] of Object.entries(commands)) {
    const args = (command.positionals ?? []).map((p) => ` <${p}>`).join('');
    lines.push('', `  ${name}${args}: ${command.summary}`);
    for (const option of command.options) {
      const spec: OptionSpec = options[option];
      const def = spec.default === undefined ? '' : spec.boolean ? ' (a switch; off by default)' : ` (default ${spec.default})`;
      lines.push(`    ${`--${spec.flag}`.padEnd(flagWidth)}${spec.env.padEnd(envWidth)}${spec.help}${def}`);
    }
  }
  lines.push('', 'Environment only:', `    ${MASTER_KEY_ENV}  base64 of 32 bytes that encrypts stored secrets; required with --database,`);
  lines.push('                    generated into <data>/master.key on first use of a data folder');
  return `${lines.join('\n')}\n`;
}

async function createAccount(flags: Record<string, unknown>, env: Env): Promise<void> {
  const name = requiredValue('name', flags, env);
  const ownerEmail = requiredValue('ownerEmail', flags, env);
  const servicePlan = optionValue('servicePlan', flags, env);
  const choice = chooseStore(flags, env);
  if (choice.kind === 'memory') throw new ConfigError('account create on memory: would keep nothing; use --data or a mysql:// --database');
  const { engine, store } = await openEngine(choice, env);
  try {
    const { account, apiKey } = await engine.createAccount({ name, ownerEmail, ...(servicePlan === undefined ? {} : { servicePlan }) });
    process.stdout.write(`${JSON.stringify({ accountId: account.id, apiKey: apiKey.key, apiKeyId: apiKey.id, account })}\n`);
  } finally {
    await store.close();
  }
}

async function importAccount(flags: Record<string, unknown>, env: Env): Promise<void> {
  const file = requiredValue('file', flags, env);
  const keyFiles = optionValues('keys', flags, env);
  if (keyFiles.length === 0) throw new ConfigError('missing --keys <key export> (once per product; or SVC_IMPORT_KEYS)');
  const explicit = typeof flags.data === 'string' || typeof flags.database === 'string' || !!env[options.data.env] || !!env[options.database.env];
  if (!explicit) throw new ConfigError('account import needs --data <dir> or --database <url> (where the account goes)');
  const choice = chooseStore(flags, env);
  if (choice.kind === 'memory') throw new ConfigError('account import on memory: would keep nothing; use --data or a mysql:// --database');
  const keys = await Promise.all(keyFiles.map((path) => readKeyExportFile(path)));
  const { engine, store } = await openEngine(choice, env);
  try {
    const { account, apiKey, counts } = await engine.importAccount({ open: () => readAccountExportFile(file), keys });
    process.stdout.write(`${JSON.stringify({ accountId: account.id, apiKey: apiKey.key, apiKeyId: apiKey.id, counts, account })}\n`);
  } finally {
    await store.close();
  }
}

/** Opens the store of `flags` (not memory) and runs `work` on an engine over it, closing the store after. */
async function withEngine<T>(what: string, flags: Record<string, unknown>, env: Env, work: (engine: LicenseEngine, store: Store) => Promise<T>): Promise<T> {
  const choice = chooseStore(flags, env);
  if (choice.kind === 'memory') throw new ConfigError(`${what} on memory: there is nothing stored; use --data or a mysql:// --database`);
  const { engine, store } = await openEngine(choice, env);
  try {
    return await work(engine, store);
  } finally {
    await store.close();
  }
}

async function changePlan(flags: Record<string, unknown>, env: Env, [accountId, plan]: string[]): Promise<void> {
  const account = await withEngine('account plan', flags, env, (engine) => engine.changeServicePlan(accountId!, plan!, OPERATOR_ACTOR));
  process.stdout.write(`${JSON.stringify({ accountId: account.id, plan: account.plan, account })}\n`);
}

async function purge(flags: Record<string, unknown>, env: Env): Promise<void> {
  const result = await withEngine('purge', flags, env, (engine, store) => purgeNow({ engine, store }));
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

async function migrate(flags: Record<string, unknown>, env: Env): Promise<void> {
  const url = requiredValue('database', flags, env);
  const choice = chooseStore({ database: url }, {});
  if (choice.kind !== 'mysql') throw new ConfigError('migrate needs a mysql:// --database URL');
  const result = await migrateDatabase(choice.url);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** Runs the CLI on `argv` (without node and the script); resolves with the exit status. */
export async function main(argv: readonly string[], env: Env = process.env): Promise<number> {
  const [first, second] = argv;
  if (first === undefined || first === 'help' || first === '--help' || first === '-h') {
    process.stdout.write(help());
    return first === undefined ? 1 : 0;
  }
  const name = first === 'account' || first === 'owner' ? `${first} ${second ?? ''}`.trim() : first;
  const command = commands[name];
  if (!command) {
    process.stderr.write(`error: unknown command ${JSON.stringify(name)}\n\n${help()}`);
    return 1;
  }
  try {
    const { values, positionals } = parseArgs({
      args: argv.slice(name.split(' ').length),
      options: Object.fromEntries(
        command.options.map((o) => {
          const spec = options[o] as OptionSpec;
          return [spec.flag, { type: spec.boolean ? ('boolean' as const) : ('string' as const), multiple: spec.multiple === true }];
        }),
      ),
      strict: true,
      allowPositionals: (command.positionals ?? []).length > 0,
    });
    const args = positionals as string[];
    const wanted = command.positionals ?? [];
    if (args.length !== wanted.length) {
      throw new ConfigError(`${name} takes ${wanted.map((p) => `<${p}>`).join(' ') || 'no arguments'}, got ${args.length === 0 ? 'none' : args.map((a) => JSON.stringify(a)).join(' ')}`);
    }
    // Flags by option name (`owner-email` → ownerEmail).
    const flags: Record<string, unknown> = {};
    for (const option of command.options) flags[option] = values[options[option].flag];
    await command.run(flags, env, args);
    return 0;
  } catch (error) {
    process.stderr.write(`error: ${(error as Error).message ?? String(error)}\n`);
    if (!ConfigError.is(error) && !(error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') && env.SVC_DEBUG) {
      process.stderr.write(`${(error as Error).stack}\n`);
    }
    return 1;
  }
}

void main(process.argv.slice(2)).then((code) => {
  if (code !== 0) process.exitCode = code;
});
