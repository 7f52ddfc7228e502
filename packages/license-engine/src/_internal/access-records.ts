import type { EncryptedSecret } from './ports.js';
import type { Timestamp } from './timestamp.js';

/** The records of who may sign in and how (members, dashboard and portal sessions, one-time links) and of the account's sender domain. */

/** Who a dashboard session belongs to: the account's owner e-mail, or an invited member. */
export type Role = 'owner' | 'member';

/** Someone the owner invited into the account's dashboard (the owner is `AccountRecord.ownerEmail`, not a member). */
export interface MemberRecord {
  id: string; // mem_
  accountId: string;
  /** Trimmed and lowercased; one member per account and address. */
  email: string;
  createdAt: Timestamp;
}

/** A signed-in dashboard session; the cookie holds the token, the store only its SHA-256. */
export interface SessionRecord {
  id: string; // ses_
  accountId: string;
  /** The signed-in address; its role is decided at each request (owner e-mail, or still a member). */
  email: string;
  /** Lowercase hex SHA-256 of the session token. */
  hash: string;
  createdAt: Timestamp;
  /** Last request, to within `SESSION_LAST_SEEN_RESOLUTION_MS`; the idle lifetime counts from it. */
  lastSeenAt: Timestamp;
  /** The absolute end of the session, whatever its use. */
  expiresAt: Timestamp;
}

/** Why a one-time link was issued. */
export type LinkPurpose = 'sign_in' | 'reopen' | 'portal_sign_in' | 'owner_email';

/**
 * A one-time link token (sign-in or account reopening): only its SHA-256 is stored. Kept, marked
 * used, until it expires, so a second use is told apart from an unknown token.
 */
export interface LinkTokenRecord {
  id: string; // ltk_
  accountId: string;
  purpose: LinkPurpose;
  /** The address the link signs in (sign-in links); the owner's for reopening; the new owner address (`owner_email`). */
  email: string;
  /** Lowercase hex SHA-256 of the token. */
  hash: string;
  createdAt: Timestamp;
  expiresAt: Timestamp;
  usedAt: Timestamp | null;
}

/**
 * A signed-in customer of the service-hosted portal: separate from dashboard sessions (another
 * collection, token prefix and cookie), so it can never authenticate the vendor API.
 */
export interface CustomerSessionRecord {
  id: string; // cse_
  accountId: string;
  /** The customer's address (trimmed, lowercased): it sees the account's licenses held by this address. */
  email: string;
  /** Lowercase hex SHA-256 of the session token. */
  hash: string;
  createdAt: Timestamp;
  lastSeenAt: Timestamp;
  expiresAt: Timestamp;
}

/** Where a claimed sender domain stands: `pending` until checked, then `verified` or `failed`. */
export type SenderDomainStatus = 'pending' | 'verified' | 'failed';

/** The outcome of each DNS record at the last check; null before any check. */
export interface SenderDomainChecks {
  ownership: boolean;
  spf: boolean;
  dkim: boolean;
}

/**
 * The sender domain an account claimed (at most one per account). Its DKIM key pair is generated
 * at the claim; the private key is stored only encrypted and leaves the engine only to sign mail.
 */
export interface SenderDomainRecord {
  id: string; // sdm_
  accountId: string;
  /** Lowercase, without a trailing dot. */
  domain: string;
  status: SenderDomainStatus;
  /** The random value of the ownership TXT record. */
  verifyToken: string;
  /** The SPF mechanism that authorizes the service's mail (e.g. `include:svc.example`), fixed at the claim. */
  spfMechanism: string;
  /** DKIM selector: the key is published at `<selector>._domainkey.<domain>`. */
  dkimSelector: string;
  /** base64 of the DKIM public key (SubjectPublicKeyInfo DER, RSA 2048), as published in the `p=` tag. */
  dkimPublicKey: string;
  /** The DKIM private key (PKCS#8 DER), encrypted. Never listed, exported or logged. */
  dkimPrivateKey: EncryptedSecret;
  checks: SenderDomainChecks | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  checkedAt: Timestamp | null;
  verifiedAt: Timestamp | null;
}
