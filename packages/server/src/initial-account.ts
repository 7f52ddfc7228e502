import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LicenseEngine, Store } from '@svc-licensing/license-engine';
import { ConfigError, optionValue, options, type Env } from './config.js';
import { linkUrl } from './session/links.js';

/** Where `serve` leaves the first account's credentials in a new data folder. */
export const INITIAL_ACCOUNT_FILE = 'initial-account.json';

/**
 * What the first account is called when its start was given no name or owner address: customers
 * see both (the portal, key e-mails), so the dashboard's overview asks for them while they remain.
 *
 * @example
 * ```ts
 * account.name === INITIAL_ACCOUNT_PLACEHOLDERS.name; // true while the vendor has not named the account
 * ```
 */
export const INITIAL_ACCOUNT_PLACEHOLDERS = { name: 'Default', ownerEmail: 'owner@example.com' } as const;

/** The name and owner address of the account the first start makes; each defaults to its placeholder. */
export interface InitialAccountInput {
  name?: string;
  ownerEmail?: string;
}

/**
 * The first account's name and owner address from `--account-name` and `--owner-email` (or
 * `SVC_ACCOUNT_NAME`, `SVC_OWNER_EMAIL`); a value left out is not returned (the placeholder then).
 * An owner address that is not one is a `ConfigError`, before anything is written.
 *
 * @example
 * ```ts
 * initialAccountInput({}, { SVC_ACCOUNT_NAME: 'Acme', SVC_OWNER_EMAIL: 'ada@acme.example' }); // { name: 'Acme', ownerEmail: 'ada@acme.example' }
 * ```
 */
export function initialAccountInput(flags: Record<string, unknown>, env: Env): InitialAccountInput {
  const name = optionValue('accountName', flags, env)?.trim();
  const ownerEmail = optionValue('ownerEmail', flags, env)?.trim();
  if (name !== undefined && (name === '' || name.length > 200)) throw new ConfigError(`--${options.accountName.flag} must be 1 to 200 characters`);
  if (ownerEmail !== undefined && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(ownerEmail)) {
    throw new ConfigError(`--${options.ownerEmail.flag} must be an e-mail address, got ${JSON.stringify(ownerEmail)}`);
  }
  return { ...(name ? { name } : {}), ...(ownerEmail ? { ownerEmail } : {}) };
}

/**
 * On a data folder that holds no account yet, creates one (service plan `unlimited`: it is the
 * operator's own) named `account.name` with owner `account.ownerEmail` (each defaulting to
 * {@link INITIAL_ACCOUNT_PLACEHOLDERS}), and writes its ID and API key to
 * `<dataDir>/initial-account.json` (mode 0600), so a fresh `serve` is usable at once: the folder is
 * locked while the server runs, so `account create` cannot be run beside it. The key is never logged;
 * only the file's path is. Returns that path, or null when the folder already had an account.
 *
 * @example
 * ```ts
 * const created = await ensureInitialAccount(engine, store, './data', { name: 'Acme', ownerEmail: 'ada@acme.example' });
 * ```
 */
export async function ensureInitialAccount(engine: LicenseEngine, store: Store, dataDir: string, account: InitialAccountInput = {}): Promise<string | null> {
  const accounts = await store.transaction((tx) => tx.count('accounts', {}));
  if (accounts > 0) return null;
  // The server's own operator: no service-plan limit, so the README walkthrough can be run again and again.
  const { account: created, apiKey } = await engine.createAccount({
    name: account.name ?? INITIAL_ACCOUNT_PLACEHOLDERS.name,
    ownerEmail: account.ownerEmail ?? INITIAL_ACCOUNT_PLACEHOLDERS.ownerEmail,
    servicePlan: 'unlimited',
  });
  const path = join(dataDir, INITIAL_ACCOUNT_FILE);
  const body = { accountId: created.id, apiKey: apiKey.key, apiKeyId: apiKey.id, note: 'Created by the first serve of this data folder. Delete this file once the key is stored elsewhere.' };
  await writeFile(path, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
  return path;
}

/**
 * The warning `serve` prints when the first account it made kept a placeholder, or null: customers
 * would see "Default" and owner@example.com until the owner changes them.
 */
export function placeholderWarning(account: InitialAccountInput): string | null {
  const kept = [
    ...(account.name === undefined ? [`is named "${INITIAL_ACCOUNT_PLACEHOLDERS.name}"`] : []),
    ...(account.ownerEmail === undefined ? [`has the owner address ${INITIAL_ACCOUNT_PLACEHOLDERS.ownerEmail}`] : []),
  ];
  if (kept.length === 0) return null;
  return (
    `the first account ${kept.join(' and ')}, which customers see (the portal, key e-mails) and where e-mailed sign-in links go: ` +
    `change them on the dashboard's overview, or start a new data folder with --${options.accountName.flag} and --${options.ownerEmail.flag}`
  );
}

/**
 * The first sign-in without e-mail: adds a one-time dashboard sign-in link of the account's owner
 * (`signInUrl`, valid 15 minutes, single use) to a new `initial-account.json`, beside the API key it
 * already holds (mode 0600; the link is never logged). Later sign-ins use the e-mailed link or
 * `svc-licensing owner sign-in-link`. Returns when the link expires.
 */
export async function addInitialSignInLink(engine: LicenseEngine, path: string, publicBaseUrl: string): Promise<string> {
  const body = JSON.parse(await readFile(path, 'utf8')) as { accountId: string } & Record<string, unknown>;
  const link = await engine.issueSignInLink(body.accountId, {});
  const next = {
    ...body,
    dashboardUrl: `${publicBaseUrl.replace(/\/+$/, '')}/dashboard/`,
    signInUrl: linkUrl(publicBaseUrl, 'sign_in', link.token),
    signInUrlExpiresAt: link.expiresAt,
  };
  await writeFile(path, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  return link.expiresAt;
}
