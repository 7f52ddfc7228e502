import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LicenseEngine, Store } from '@svc-licensing/license-engine';
import { linkUrl } from './session/links.js';

/** Where `serve` leaves the first account's credentials in a new data folder. */
export const INITIAL_ACCOUNT_FILE = 'initial-account.json';

/**
 * On a data folder that holds no account yet, creates one (service plan `unlimited`: it is the
 * operator's own) and writes its ID and API key to
 * `<dataDir>/initial-account.json` (mode 0600), so a fresh `serve` is usable at once: the folder is
 * locked while the server runs, so `account create` cannot be run beside it. The key is never logged;
 * only the file's path is. Returns that path, or null when the folder already had an account.
 */
export async function ensureInitialAccount(engine: LicenseEngine, store: Store, dataDir: string): Promise<string | null> {
  const accounts = await store.transaction((tx) => tx.count('accounts', {}));
  if (accounts > 0) return null;
  // The server's own operator: no service-plan limit, so the README walkthrough can be run again and again.
  const { account, apiKey } = await engine.createAccount({ name: 'Default', ownerEmail: 'owner@example.com', servicePlan: 'unlimited' });
  const path = join(dataDir, INITIAL_ACCOUNT_FILE);
  const body = { accountId: account.id, apiKey: apiKey.key, apiKeyId: apiKey.id, note: 'Created by the first serve of this data folder. Delete this file once the key is stored elsewhere.' };
  await writeFile(path, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
  return path;
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
