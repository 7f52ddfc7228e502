/**
 * `svc-licensing owner sign-in-link`: a one-time dashboard sign-in link for an account's owner,
 * said for the person who runs it (the link on a line of its own, whom it signs in, until when), or
 * as one JSON object with `--json`. `owner reopen-link`: the same for a closed account's owner, a
 * link that reopens it (within the 30 days after its closure).
 */
import {
  CLOSURE_DAYS, createSecretBox, cryptoRandom, sealOperatorReopenLink, sealOperatorSignInLink, systemClock, type AccountView,
} from '@svc-licensing/license-engine';
import { booleanValue, ConfigError, MASTER_KEY_ENV, requiredValue, serveConfig, type Env } from './config.js';
import { resolveMasterKey } from './master-key.js';
import { linkUrl } from './session/links.js';

/** What the command made and found out. */
export interface OperatorSignInLink {
  url: string;
  accountId: string;
  /** Null when the account could not be read here (a server holds the data folder). */
  ownerEmail: string | null;
  /** `YYYY-MM-DDThh:mm:ssZ`. */
  expiresAt: string;
  /** Whether the account was read (and is open) before the link was made. */
  accountChecked: boolean;
  /** The process holding the data folder when the account could not be read, if known. */
  heldBy: number | null;
  /** What the link does; `sign_in` when absent. */
  purpose?: 'sign_in' | 'reopen';
}

/**
 * The command's answer for a person: whom the link signs in and until when, the link on a line of
 * its own (so a terminal's selection or click takes it whole), and what to do with it.
 *
 * @example
 * describeSignInLink({ url, accountId: 'acc_1', ownerEmail: 'owner@acme.test', expiresAt: '2026-01-01T10:15:00Z', accountChecked: true, heldBy: null });
 */
export function describeSignInLink(link: OperatorSignInLink): string {
  const until = `${link.expiresAt.slice(0, 10)} ${link.expiresAt.slice(11, 16)} UTC`;
  const who = link.ownerEmail === null ? `the owner of account ${link.accountId}` : `${link.ownerEmail}, the owner of account ${link.accountId}`;
  const lines =
    link.purpose === 'reopen'
      ? [
          `Reopen link for ${who}, valid once until ${until} (24 hours, and only within ${CLOSURE_DAYS} days of the closure):`, '', `  ${link.url}`, '',
          'Open it in a browser and press "Reopen the account and sign in". The account\'s old API keys stay revoked.',
        ]
      : [`Sign-in link for ${who}, valid once until ${until} (15 minutes):`, '', `  ${link.url}`, '', 'Open it in a browser and press "Sign in".'];
  if (!link.accountChecked) {
    const server = link.heldBy === null ? 'The server running on this data folder' : `The server running on this data folder (process ${link.heldBy})`;
    lines.push(`${server} holds its records, so the account was not looked up here: that server checks it when the link is opened.`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Makes the link without writing to the store (a running server may hold the embedded store's
 * lock): the claim sealed with the master key. When the store can be read (a database, or a data
 * folder no server holds), the account is checked first through `readAccount`.
 */
export async function ownerSignInLink(
  flags: Record<string, unknown>,
  env: Env,
  readAccount: (accountId: string) => Promise<AccountView>,
): Promise<void> {
  return ownerLink(flags, env, readAccount, 'sign_in');
}

/**
 * `owner reopen-link`: a reopen link for the owner of a closed account who lost the e-mailed one,
 * made like the sign-in link (sealed, nothing written); the account, when it can be read, must be
 * closed and within its 30 days; the server checks that again when the link is used.
 */
export async function ownerReopenLink(
  flags: Record<string, unknown>,
  env: Env,
  readAccount: (accountId: string) => Promise<AccountView>,
): Promise<void> {
  return ownerLink(flags, env, readAccount, 'reopen');
}

/** Refuses an account the link of `purpose` cannot be used for. */
function checkAccount(account: AccountView, purpose: 'sign_in' | 'reopen', now: number): void {
  const id = account.id;
  if (purpose === 'sign_in') {
    if (account.status !== 'open') throw new ConfigError(`account ${id} is closed; the owner reopens it with the link e-mailed at closure, or one printed by owner reopen-link`);
    return;
  }
  if (account.status === 'open') throw new ConfigError(`account ${id} is open: nothing to reopen; owner sign-in-link prints a sign-in link`);
  if (account.closedAt !== null && Date.parse(account.closedAt) + CLOSURE_DAYS * 86_400_000 <= now) {
    throw new ConfigError(`account ${id} was closed on ${account.closedAt.slice(0, 10)}, more than ${CLOSURE_DAYS} days ago: it can no longer be reopened`);
  }
}

async function ownerLink(
  flags: Record<string, unknown>,
  env: Env,
  readAccount: (accountId: string) => Promise<AccountView>,
  purpose: 'sign_in' | 'reopen',
): Promise<void> {
  const accountId = requiredValue('account', flags, env);
  const json = booleanValue('json', flags, env);
  const { publicBaseUrl, store: choice } = serveConfig(flags, env);
  if (choice.kind === 'memory') throw new ConfigError(`owner ${purpose === 'reopen' ? 'reopen-link' : 'sign-in-link'} on memory: there is no account; use --data or a mysql:// --database`);
  const { key } =
    choice.kind === 'embedded'
      ? await resolveMasterKey({ fromEnv: env[MASTER_KEY_ENV], dataDir: choice.dataDir, generate: false })
      : await resolveMasterKey({ fromEnv: env[MASTER_KEY_ENV] });
  let ownerEmail: string | null = null;
  let heldBy: number | null = null;
  try {
    const account = await readAccount(accountId);
    checkAccount(account, purpose, systemClock.now());
    ownerEmail = account.ownerEmail;
  } catch (error) {
    // A running server holds the data folder: it checks the account when the link is used.
    const held = /is in use by process (\d+)/.exec((error as Error)?.message ?? '');
    if (!held) throw error;
    heldBy = Number(held[1]);
  }
  const seal = purpose === 'reopen' ? sealOperatorReopenLink : sealOperatorSignInLink;
  const { token, expiresAt } = seal({ secrets: createSecretBox(key), clock: systemClock, random: cryptoRandom }, accountId);
  const link: OperatorSignInLink = { url: linkUrl(publicBaseUrl, purpose, token), accountId, ownerEmail, expiresAt, accountChecked: heldBy === null, heldBy, purpose };
  if (json) {
    const { heldBy: _, purpose: __, ...fields } = link;
    process.stdout.write(`${JSON.stringify(fields)}\n`);
  } else {
    process.stdout.write(describeSignInLink(link));
  }
}
