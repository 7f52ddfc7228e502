import { createPrivateKey, generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import { LicensingError } from '../_internal/errors.js';
import type { DnsResolver } from '../_internal/ports.js';
import type { AccountRecord, SenderDomainChecks, SenderDomainRecord } from '../_internal/records.js';
import type { StoreTx } from '../_internal/store.js';
import { audit } from '../_internal/audit.js';
import { loadAccount } from '../_internal/account.js';
import type { EngineContext } from '../_internal/context.js';
import { now, transact } from '../_internal/context.js';
import { asObject, invalid } from '../_internal/validate.js';
import { OWNERSHIP_RECORD_LABEL, verifiedSenderEmail } from '../_internal/sender-domain.js';
import type { SenderDomainView } from '../_internal/views.js';
import { senderDomainView } from '../_internal/record-views.js';

const generateRsa = promisify(generateKeyPair);

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A lowercase ASCII host name of at least two labels with a non-numeric last label; anything else is `invalid_request`. */
function parseDomain(value: unknown): string {
  if (typeof value !== 'string') invalid('domain must be a domain name');
  const domain = value.trim().toLowerCase().replace(/\.$/, '');
  const labels = domain.split('.');
  if (domain.length > 253 || labels.length < 2 || !labels.every((l) => LABEL.test(l)) || /^\d+$/.test(labels[labels.length - 1]!)) {
    invalid('domain must be a domain name such as mail.example.com (IDNs in their xn-- form)');
  }
  return domain;
}

/** The mechanism added to the domain's SPF record: `include:<domain>`, `ip4:...`, `a:...` or `mx`. */
function parseSpfMechanism(value: unknown): string {
  if (typeof value !== 'string' || !/^(include|a|mx|ip4|ip6|exists):[^\s]{1,253}$|^(a|mx)$/.test(value)) {
    throw new TypeError(`spfMechanism must be an SPF mechanism such as include:svc.example, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** What the vendor API answers while no domain is claimed. */
const NONE: SenderDomainView = { domain: null, status: 'none', senderEmail: null, records: [], createdAt: null, checkedAt: null, verifiedAt: null };

async function claimed(tx: StoreTx, accountId: string, lock = false): Promise<SenderDomainRecord | null> {
  return tx.findOne('senderDomains', { accountId }, { lock });
}

/** `GET /account/sender-domain`: the claimed domain with its records, or status `none`. */
export async function getSenderDomain(ctx: EngineContext, accountId: string): Promise<SenderDomainView> {
  return transact(
    ctx,
    async (tx) => {
      const account = await loadAccount(tx, accountId);
      const record = await claimed(tx, accountId);
      return record ? senderDomainView(record, account) : NONE;
    },
    { readOnly: true },
  );
}

/**
 * `POST /account/sender-domain` (owner): claims `domain` with a new RSA-2048 DKIM key pair (private
 * key encrypted) and a random ownership token; status `pending`. Claiming the domain already
 * claimed answers it unchanged; another domain while one is claimed is `conflict` (release first).
 * `spfMechanism` is the host's SPF mechanism for its outgoing mail (e.g. `include:svc.example`).
 */
export async function claimSenderDomain(
  ctx: EngineContext,
  accountId: string,
  input: { domain: string },
  options: { spfMechanism: string },
): Promise<SenderDomainView> {
  const domain = parseDomain(asObject(input).domain);
  const spfMechanism = parseSpfMechanism(options.spfMechanism);
  const existing = await transact(ctx, (tx) => claimed(tx, accountId), { readOnly: true });
  if (existing && existing.domain !== domain) throw conflictWith(existing);
  // RSA generation takes tens of milliseconds: done before the transaction, not inside it.
  const pair = existing ? null : await generateRsa('rsa', { modulusLength: 2048 });
  return transact(ctx, async (tx) => {
    const account = await loadAccount(tx, accountId, true);
    const current = await claimed(tx, accountId, true);
    if (current) {
      if (current.domain !== domain) throw conflictWith(current);
      return senderDomainView(current, account);
    }
    if (!pair) throw new LicensingError('conflict', 'the sender domain was released meanwhile; claim it again');
    const spki = pair.publicKey.export({ type: 'spki', format: 'der' });
    const pkcs8 = pair.privateKey.export({ type: 'pkcs8', format: 'der' });
    const at = now(ctx);
    const token = Buffer.from(ctx.random.bytes(16).slice(0, 16)).toString('hex');
    const id = ctx.ids.next('sdm');
    const record: SenderDomainRecord = {
      id,
      accountId,
      domain,
      status: 'pending',
      verifyToken: token,
      spfMechanism,
      dkimSelector: `svc${Buffer.from(ctx.random.bytes(4).slice(0, 4)).toString('hex')}`,
      dkimPublicKey: spki.toString('base64'),
      dkimPrivateKey: ctx.secrets.encrypt(new Uint8Array(pkcs8), { purpose: 'dkim-key', record: id }),
      checks: null,
      createdAt: at,
      updatedAt: at,
      checkedAt: null,
      verifiedAt: null,
    };
    pkcs8.fill(0);
    await tx.insert('senderDomains', record);
    await audit(ctx, tx, { accountId, type: 'sender_domain.claimed', licenseId: null, data: { domain }, account, view: () => senderDomainView(record, account) });
    return senderDomainView(record, account);
  });
}

function conflictWith(record: SenderDomainRecord): LicensingError {
  return new LicensingError('conflict', `the sender domain ${record.domain} is claimed; release it before claiming another`);
}

/** The character strings of one TXT record joined, as RFC 7208 and RFC 6376 read a split record. */
const joined = (records: string[][]): string[] => records.map((chunks) => chunks.join(''));

/** Checks the three published records against what the claim asks for. */
async function check(resolver: DnsResolver, record: SenderDomainRecord): Promise<SenderDomainChecks> {
  const [ownership, spf, dkim] = await Promise.all([
    resolver.resolveTxt(`${OWNERSHIP_RECORD_LABEL}.${record.domain}`),
    resolver.resolveTxt(record.domain),
    resolver.resolveTxt(`${record.dkimSelector}._domainkey.${record.domain}`),
  ]);
  const spfRecords = joined(spf).filter((text) => /^v=spf1(\s|$)/i.test(text.trim()));
  const spfTerms = spfRecords.length === 1 ? spfRecords[0]!.trim().toLowerCase().split(/\s+/) : [];
  const mechanism = record.spfMechanism.toLowerCase();
  return {
    ownership: joined(ownership).some((text) => text.trim() === `svc-verify=${record.verifyToken}`),
    // Exactly one SPF record (two are a permanent error for receivers) that names the mechanism.
    spf: spfTerms.includes(mechanism) || spfTerms.includes(`+${mechanism}`),
    dkim: joined(dkim).some((text) => {
      const tags = new Map(
        text.split(';').map((part) => {
          const at = part.indexOf('=');
          return [part.slice(0, at).trim().toLowerCase(), part.slice(at + 1).replace(/\s+/g, '')] as const;
        }),
      );
      return tags.get('p') === record.dkimPublicKey && (tags.get('k') ?? 'rsa').toLowerCase() === 'rsa';
    }),
  };
}

/**
 * `POST /account/sender-domain/verify`: looks the three records up now through `resolver` and
 * stores the outcome: `verified` when all match, else `failed` (also for a domain verified
 * before: mail stops being signed). `not_found` while none is claimed. When a lookup itself fails
 * (timeout, refused), nothing changes and the error is `internal_error` (retry later).
 */
export async function verifySenderDomain(ctx: EngineContext, accountId: string, resolver: DnsResolver): Promise<SenderDomainView> {
  const record = await transact(ctx, (tx) => claimed(tx, accountId), { readOnly: true });
  if (!record) throw new LicensingError('not_found', 'no sender domain is claimed');
  let checks: SenderDomainChecks;
  try {
    checks = await check(resolver, record);
  } catch (error) {
    throw new LicensingError('internal_error', `the DNS records of ${record.domain} could not be looked up; retry later`, { cause: error });
  }
  return transact(ctx, async (tx) => {
    const account = await loadAccount(tx, accountId);
    const current = await claimed(tx, accountId, true);
    // Released or claimed again while DNS answered: this outcome is about another claim.
    if (!current || current.id !== record.id) throw new LicensingError('conflict', 'the sender domain changed during the check; verify again');
    const at = now(ctx);
    const status = checks.ownership && checks.spf && checks.dkim ? 'verified' : 'failed';
    const next: SenderDomainRecord = {
      ...current,
      status,
      checks,
      checkedAt: at,
      updatedAt: at,
      verifiedAt: status === 'verified' ? (current.status === 'verified' ? current.verifiedAt : at) : null,
    };
    await tx.update('senderDomains', next);
    if (status !== current.status) {
      await audit(ctx, tx, {
        accountId, type: 'sender_domain.checked', licenseId: null, data: { domain: current.domain, status, ...checks }, account, view: () => senderDomainView(next, account),
      });
    }
    return senderDomainView(next, account);
  });
}

/**
 * `DELETE /account/sender-domain` (owner): deletes the claim with its DKIM key; key e-mails go
 * out from the service's sender again. `not_found` while none is claimed.
 */
export async function releaseSenderDomain(ctx: EngineContext, accountId: string): Promise<SenderDomainView> {
  return transact(ctx, async (tx) => {
    const account = await loadAccount(tx, accountId);
    const record = await claimed(tx, accountId, true);
    if (!record) throw new LicensingError('not_found', 'no sender domain is claimed');
    await tx.delete('senderDomains', record.id);
    await audit(ctx, tx, {
      accountId, type: 'sender_domain.released', licenseId: null, data: { domain: record.domain }, account, view: () => senderDomainView(record, account),
    });
    return NONE;
  });
}

/** How a license-key e-mail is signed: nodemailer's `dkim` option. */
export interface DkimSigning {
  domainName: string;
  keySelector: string;
  /** PEM (PKCS#8) of the private key: held in memory only while the e-mail is sent. */
  privateKey: string;
}

/** The account's sender domain record (claimed, maybe not verified yet), or null. */
export function senderDomainOf(tx: StoreTx, accountId: string): Promise<SenderDomainRecord | null> {
  return claimed(tx, accountId);
}

/**
 * The sender of the account's key e-mails: with a verified domain (`record`, as
 * {@link senderDomainOf} read it), its address and the DKIM key (decrypted); otherwise null (the
 * account's sender settings and the host's default apply).
 */
export function verifiedSender(ctx: EngineContext, record: SenderDomainRecord | null, account: AccountRecord): { email: string; dkim: DkimSigning } | null {
  if (!record || record.status !== 'verified') return null;
  const der = ctx.secrets.decrypt(record.dkimPrivateKey, { purpose: 'dkim-key', record: record.id });
  const pem = createPrivateKey({ key: Buffer.from(der), format: 'der', type: 'pkcs8' }).export({ type: 'pkcs8', format: 'pem' }).toString();
  der.fill(0);
  return { email: verifiedSenderEmail(record, account), dkim: { domainName: record.domain, keySelector: record.dkimSelector, privateKey: pem } };
}
