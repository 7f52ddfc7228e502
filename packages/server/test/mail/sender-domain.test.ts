import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import {
  createIdGenerator, createLicenseEngine, createSecretBox, cryptoRandom, LicensingError, type LicenseEngine, type Store,
} from '@svc-licensing/license-engine';
import { createDnsResolver, createKeyEmailSender, createSmtpMailer } from '../../src/index.js';
import { openEmbeddedStore } from '../../src/stores/embedded/index.js';
import { openTestStore, STORE_KINDS, type StoreKind } from '../support/stores.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startSmtpCapture, type SmtpCapture } from '../support/smtp-capture.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of cleanups.splice(0).reverse()) await close();
});

const DOMAIN = 'mail.acme.test';
const SPF = 'include:svc.test';

interface World {
  engine: LicenseEngine;
  store: Store;
  accountId: string;
  licenseId: string;
  dns: TestDnsServer;
  smtp: SmtpCapture;
  resolver: ReturnType<typeof createDnsResolver>;
  sendKey(): Promise<string>;
  /** Publishes the records a claim asks for (optionally leaving some out). */
  publish(view: { records: { purpose: string; name: string; value: string }[] }, skip?: string[]): void;
  /** Every byte the store wrote: the data folder's files, or the MySQL table's rows. */
  storedText(): Promise<string>;
}

async function world(kind: StoreKind): Promise<World> {
  // The embedded store in a folder of our own, so the test can read what reached the disk.
  const dir = kind === 'embedded' ? await mkdtemp(join(tmpdir(), 'svc-sender-')) : null;
  if (dir) cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const opened = dir ? null : await openTestStore(kind);
  if (opened) cleanups.push(opened.close);
  const store = dir ? await openEmbeddedStore(dir) : opened!.store();
  if (dir) cleanups.push(() => store.close());
  const engine = createLicenseEngine({
    store,
    random: cryptoRandom,
    ids: createIdGenerator({ clock: { now: () => Date.now() }, random: cryptoRandom }),
    secrets: createSecretBox(new Uint8Array(randomBytes(32))),
  });
  const dns = await startDnsServer();
  cleanups.push(() => dns.close());
  const smtp = await startSmtpCapture({ starttls: false });
  cleanups.push(() => smtp.close());
  const { account } = await engine.createAccount({ name: 'Acme', ownerEmail: 'owner@acme.test', servicePlan: 'unlimited' });
  await engine.updateAccount(account.id, { senderName: 'Acme Sales' });
  const product = await engine.createProduct(account.id, { name: 'Acme Editor', keyPrefix: 'ACME-' });
  const plan = await engine.createPlan(account.id, product.id, { code: 'pro', kind: 'perpetual' });
  const { license } = await engine.createLicense(account.id, { plan: plan.id, email: 'ada@example.test', name: 'Ada' });
  const keyEmails = createKeyEmailSender({
    engine,
    mailer: createSmtpMailer({ host: '127.0.0.1', port: smtp.port, security: 'none', timeoutMs: 10_000 }),
    sender: { fromAddress: 'no-reply@svc.test' },
  });
  return {
    engine,
    store,
    accountId: account.id,
    licenseId: license.id,
    dns,
    smtp,
    resolver: createDnsResolver({ servers: [dns.address], timeoutMs: 1000 }),
    async sendKey() {
      const before = smtp.messages.length;
      await keyEmails.send({ accountId: account.id, licenseId: license.id });
      return (await smtp.waitFor(before + 1))[before]!.raw;
    },
    publish(view, skip = []) {
      for (const r of view.records) if (!skip.includes(r.purpose)) dns.setTxt(r.name, [r.value]);
    },
    async storedText() {
      if (!dir) {
        const rows = await store.transaction((tx) => tx.findMany('senderDomains', { accountId: account.id }));
        return JSON.stringify(rows);
      }
      // Embedded: the journal and snapshots under the data folder, as written to disk.
      const files = await readdir(dir, { recursive: true, withFileTypes: true });
      const texts = await Promise.all(files.filter((f) => f.isFile()).map((f) => readFile(join(f.parentPath, f.name), 'utf8')));
      return texts.join('\n');
    },
  };
}

/** mailauth's DKIM verifier, asking the test DNS server for the public key. */
async function verifyDkim(raw: string, dns: TestDnsServer) {
  const resolver = new Resolver({ timeout: 2000, tries: 2 });
  resolver.setServers([dns.address]);
  const { results } = await dkimVerify(raw, { resolver: (name: string, type: string) => resolver.resolve(name, type as 'TXT') as never });
  return results;
}

const code = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    if (LicensingError.is(error)) return error.code;
    throw error;
  }
  return 'no error';
};

// Each case generates RSA keys and talks to MariaDB, DNS and SMTP servers: on a loaded 2-core machine a
// case has taken over 30 s, so the cases get more time than vitest's default.
const SLOW = 120_000;

describe.each(STORE_KINDS)('sender domain on the %s store', (kind) => {
  it('claims a domain with three records to publish; verify fails until all are in DNS, then key e-mails are DKIM-signed at that domain', async () => {
    const w = await world(kind);
    const claimed = await w.engine.claimSenderDomain(w.accountId, { domain: 'Mail.Acme.TEST.' }, { spfMechanism: SPF });
    expect(claimed).toMatchObject({ domain: DOMAIN, status: 'pending', senderEmail: null, checkedAt: null, verifiedAt: null });
    const byPurpose = Object.fromEntries(claimed.records.map((r) => [r.purpose, r]));
    expect(byPurpose.ownership).toMatchObject({ type: 'TXT', name: `_svc-licensing.${DOMAIN}`, verified: null });
    expect(byPurpose.ownership!.value).toMatch(/^svc-verify=[0-9a-f]{32}$/);
    expect(byPurpose.spf).toMatchObject({ type: 'TXT', name: DOMAIN, value: `v=spf1 ${SPF} ~all` });
    expect(byPurpose.dkim!.name).toMatch(new RegExp(`^svc[0-9a-f]{8}\\._domainkey\\.${DOMAIN.replace(/\./g, '\\.')}$`));
    expect(byPurpose.dkim!.value).toMatch(/^v=DKIM1; k=rsa; p=MII[A-Za-z0-9+/=]+$/);
    expect(await w.engine.getSenderDomain(w.accountId)).toEqual(claimed);

    // Nothing published yet: failed, each record says why; mail stays unsigned, from the service's sender.
    const none = await w.engine.verifySenderDomain(w.accountId, w.resolver);
    expect(none.status).toBe('failed');
    expect(none.records.map((r) => r.verified)).toEqual([false, false, false]);
    const unsigned = await w.sendKey();
    expect(unsigned).not.toMatch(/^DKIM-Signature:/im);
    expect(w.smtp.messages.at(-1)!.mail.from?.value[0]?.address).toBe('no-reply@svc.test');

    // Ownership and SPF but no DKIM key: still failed.
    w.publish(claimed, ['dkim']);
    const partial = await w.engine.verifySenderDomain(w.accountId, w.resolver);
    expect(partial.status).toBe('failed');
    expect(partial.records.map((r) => [r.purpose, r.verified])).toEqual([['ownership', true], ['spf', true], ['dkim', false]]);

    // Every record (the DKIM one is longer than 255 bytes: published as split strings, as zone files do).
    w.publish(claimed);
    const verified = await w.engine.verifySenderDomain(w.accountId, w.resolver);
    expect(verified).toMatchObject({ status: 'verified', senderEmail: `licenses@${DOMAIN}` });
    expect(verified.verifiedAt).not.toBeNull();
    expect(w.dns.queries).toContain(`_svc-licensing.${DOMAIN}`);

    const signed = await w.sendKey();
    const mail = w.smtp.messages.at(-1)!;
    expect(mail.mail.from?.value[0]).toEqual({ name: 'Acme Sales', address: `licenses@${DOMAIN}` });
    expect(mail.envelope.from).toBe(`licenses@${DOMAIN}`);
    const results = await verifyDkim(signed, w.dns);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ signingDomain: DOMAIN, selector: byPurpose.dkim!.name.split('.')[0], status: { result: 'pass' } });
    // The verifier really checks: a changed body fails.
    const tampered = signed.replace(/Ada/, 'Eve');
    expect((await verifyDkim(tampered, w.dns))[0]!.status.result).toBe('fail');

    // The account's own sender address is used when it is at the verified domain.
    await w.engine.updateAccount(w.accountId, { senderEmail: `sales@${DOMAIN}` });
    expect((await w.engine.getSenderDomain(w.accountId)).senderEmail).toBe(`sales@${DOMAIN}`);
    const own = await w.sendKey();
    expect(w.smtp.messages.at(-1)!.mail.from?.value[0]?.address).toBe(`sales@${DOMAIN}`);
    expect((await verifyDkim(own, w.dns))[0]!.status.result).toBe('pass');

    // Release: the key is gone; mail is unsigned again, from the account's sender settings.
    await w.engine.updateAccount(w.accountId, { senderEmail: null });
    expect(await w.engine.releaseSenderDomain(w.accountId)).toMatchObject({ domain: null, status: 'none', records: [] });
    expect(await w.store.transaction((tx) => tx.findMany('senderDomains', { accountId: w.accountId }))).toEqual([]);
    const after = await w.sendKey();
    expect(after).not.toMatch(/^DKIM-Signature:/im);
    expect(w.smtp.messages.at(-1)!.mail.from?.value[0]?.address).toBe('no-reply@svc.test');
    expect(await code(w.engine.releaseSenderDomain(w.accountId))).toBe('not_found');
    expect(await code(w.engine.verifySenderDomain(w.accountId, w.resolver))).toBe('not_found');

    const events = await w.engine.listEvents(w.accountId);
    expect(events.data.map((e) => e.type).filter((t) => t.startsWith('sender_domain.'))).toEqual([
      'sender_domain.released', 'sender_domain.checked', 'sender_domain.checked', 'sender_domain.claimed',
    ]);
    expect(JSON.stringify(events)).not.toMatch(/PRIVATE KEY|MII[A-Za-z0-9+/]{40}/);
  }, SLOW);

  it('a verified domain whose records disappear fails at the next check and mail stops being signed', async () => {
    const w = await world(kind);
    const claimed = await w.engine.claimSenderDomain(w.accountId, { domain: DOMAIN }, { spfMechanism: SPF });
    w.publish(claimed);
    expect((await w.engine.verifySenderDomain(w.accountId, w.resolver)).status).toBe('verified');
    // A second SPF record makes SPF a permanent error for receivers: not accepted.
    w.dns.setTxt(DOMAIN, [`v=spf1 ${SPF} ~all`, 'v=spf1 -all']);
    const failed = await w.engine.verifySenderDomain(w.accountId, w.resolver);
    expect(failed).toMatchObject({ status: 'failed', senderEmail: null, verifiedAt: null });
    expect(failed.records.find((r) => r.purpose === 'spf')!.verified).toBe(false);
    expect(await w.sendKey()).not.toMatch(/^DKIM-Signature:/im);
  }, SLOW);

  it('refuses bad domains and a second domain, answers the same claim again, and keeps the private key only encrypted', async () => {
    const w = await world(kind);
    for (const domain of ['', 'localhost', 'a..b', '-a.test', 'a.123', 'exa mple.test', `${'a'.repeat(64)}.test`, 42]) {
      expect(await code(w.engine.claimSenderDomain(w.accountId, { domain } as never, { spfMechanism: SPF })), String(domain)).toBe('invalid_request');
    }
    expect((await w.engine.getSenderDomain(w.accountId)).status).toBe('none');
    const first = await w.engine.claimSenderDomain(w.accountId, { domain: DOMAIN }, { spfMechanism: SPF });
    expect(await w.engine.claimSenderDomain(w.accountId, { domain: DOMAIN }, { spfMechanism: SPF })).toEqual(first);
    expect(await code(w.engine.claimSenderDomain(w.accountId, { domain: 'other.acme.test' }, { spfMechanism: SPF }))).toBe('conflict');

    const [record] = await w.store.transaction((tx) => tx.findMany('senderDomains', { accountId: w.accountId }));
    expect(record!.dkimPrivateKey).toMatch(/^v2\./);
    const stored = await w.storedText();
    expect(stored).toContain(first.records[2]!.value.split('p=')[1]);
    expect(stored).not.toMatch(/PRIVATE KEY/);
  }, SLOW);

  it('two claims racing: one record, both answers name it', async () => {
    const w = await world(kind);
    const answers = await Promise.all([0, 1, 2].map(() => w.engine.claimSenderDomain(w.accountId, { domain: DOMAIN }, { spfMechanism: SPF })));
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(await w.store.transaction((tx) => tx.count('senderDomains', { accountId: w.accountId }))).toBe(1);
  }, SLOW);

  it('a DNS server that does not answer changes nothing (internal_error, retry later)', async () => {
    const w = await world(kind);
    const claimed = await w.engine.claimSenderDomain(w.accountId, { domain: DOMAIN }, { spfMechanism: SPF });
    w.publish(claimed);
    expect((await w.engine.verifySenderDomain(w.accountId, w.resolver)).status).toBe('verified');
    const silent = createDnsResolver({ servers: [w.dns.address], timeoutMs: 200 });
    await w.dns.close();
    expect(await code(w.engine.verifySenderDomain(w.accountId, silent))).toBe('internal_error');
    expect((await w.engine.getSenderDomain(w.accountId)).status).toBe('verified');
  }, SLOW);
});
