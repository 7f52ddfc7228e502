import type { AccountRecord, SenderDomainRecord } from './records.js';
import type { SenderDomainDnsRecord } from './views.js';

/** Name of the ownership TXT record under the claimed domain. */
export const OWNERSHIP_RECORD_LABEL = '_svc-licensing';

/** The local part of the From address while verified, when the account's sender address is elsewhere. */
export const DEFAULT_SENDER_LOCAL_PART = 'licenses';

/** The three TXT records a claim asks for, with the outcome of the last check. */
export function dnsRecordsOf(record: SenderDomainRecord): SenderDomainDnsRecord[] {
  const checks = record.checks;
  return [
    {
      purpose: 'ownership',
      type: 'TXT',
      name: `${OWNERSHIP_RECORD_LABEL}.${record.domain}`,
      value: `svc-verify=${record.verifyToken}`,
      verified: checks?.ownership ?? null,
    },
    { purpose: 'spf', type: 'TXT', name: record.domain, value: `v=spf1 ${record.spfMechanism} ~all`, verified: checks?.spf ?? null },
    {
      purpose: 'dkim',
      type: 'TXT',
      name: `${record.dkimSelector}._domainkey.${record.domain}`,
      value: `v=DKIM1; k=rsa; p=${record.dkimPublicKey}`,
      verified: checks?.dkim ?? null,
    },
  ];
}

/** The From address while `record` is verified: the account's sender address at that domain, else `licenses@<domain>`. */
export function verifiedSenderEmail(record: SenderDomainRecord, account: AccountRecord): string {
  const own = account.senderEmail;
  return own && own.slice(own.lastIndexOf('@') + 1).toLowerCase() === record.domain ? own : `${DEFAULT_SENDER_LOCAL_PART}@${record.domain}`;
}
