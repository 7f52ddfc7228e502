import type { Timestamp } from './timestamp.js';

/**
 * Who did something: the account's owner or a member (a dashboard session, by address), one of
 * its API keys, the operator (the CLI on the server's machine), or a customer (the portal, by
 * address). `email` is set for owner, member and customer, `apiKeyId` for an API key; the other
 * is null.
 */
export type ActorKind = 'owner' | 'member' | 'api_key' | 'operator' | 'customer';

/** An actor as stored and shown: its kind and who, within that kind. */
export interface Actor {
  kind: ActorKind;
  email: string | null;
  apiKeyId: string | null;
}

/** The operator: accounts made or imported with the CLI, links it prints. */
export const OPERATOR_ACTOR: Actor = Object.freeze({ kind: 'operator', email: null, apiKeyId: null });

/** Audit event types of the spec's table. */
export type AuditEventType =
  | 'license.created'
  | 'license.status_changed'
  | 'license.updated'
  | 'activation.created'
  | 'activation.deleted'
  | 'webhook.received'
  | 'signing_key.created'
  | 'signing_key.rotated'
  | 'signing_key.exported'
  | 'account.plan_changed'
  | 'sender_domain.claimed'
  | 'sender_domain.checked'
  | 'sender_domain.released'
  | 'account.exported'
  | 'account.imported'
  | 'account.owner_email_changed'
  | 'lease.expired'
  | 'lease.borrowed'
  | 'lease.returned'
  | SecurityEventType;

/**
 * Security actions, audited with their actor (issue 25): API keys created and revoked, members
 * invited and removed, dashboard sign-ins and ended sessions, account and portal setting changes,
 * and a customer revealing a license key in the portal. They are listed by `GET /events` but are no
 * notification types (an endpoint never receives them).
 */
export type SecurityEventType =
  | 'api_key.created'
  | 'api_key.revoked'
  | 'member.invited'
  | 'member.removed'
  | 'session.signed_in'
  | 'session.revoked'
  | 'account.updated'
  | 'portal.key_revealed';

/** Every security event type. */
export const SECURITY_EVENT_TYPES: readonly SecurityEventType[] = Object.freeze([
  'api_key.created', 'api_key.revoked', 'member.invited', 'member.removed', 'session.signed_in', 'session.revoked', 'account.updated', 'portal.key_revealed',
] satisfies SecurityEventType[]);

/** Every actor kind, as `GET /events?actor=` takes them. */
export const ACTOR_KINDS: readonly ActorKind[] = Object.freeze(['owner', 'member', 'api_key', 'operator', 'customer'] satisfies ActorKind[]);

/** The event types a webhook endpoint may receive: every audit event type but the security ones. */
export type NotificationEventType = Exclude<AuditEventType, SecurityEventType>;

/** Every audit event type but the security ones, in the spec's order: each is a notification type too. */
export const AUDIT_EVENT_TYPES: readonly Exclude<AuditEventType, SecurityEventType>[] = Object.freeze([
  'license.created', 'license.status_changed', 'license.updated', 'activation.created', 'activation.deleted', 'webhook.received',
  'signing_key.created', 'signing_key.rotated', 'signing_key.exported', 'account.plan_changed', 'sender_domain.claimed',
  'sender_domain.checked', 'sender_domain.released', 'account.exported', 'account.imported', 'account.owner_email_changed',
  'lease.expired', 'lease.borrowed', 'lease.returned',
] satisfies Exclude<AuditEventType, SecurityEventType>[]);

/**
 * Data keys of each audit event type. The spec fixes those of `license.status_changed` and
 * `webhook.received`; the others are this engine's choice (docs/decisions.md).
 */
export interface AuditData {
  'license.created': { plan: string; source: string };
  'license.status_changed': { from: string; to: string; source: string };
  'license.updated': { fields: string[]; source: string };
  'activation.created': { activation: string; fingerprint: string };
  'activation.deleted': { activation: string; fingerprint: string; source: string };
  'webhook.received': { provider: string; eventType: string; result: string; detail: string };
  'signing_key.created': { product: string; kid: string };
  'signing_key.rotated': { product: string; kid: string; retiredKid: string | null };
  'signing_key.exported': { product: string; kids: string[] };
  'account.plan_changed': { from: string; to: string };
  'sender_domain.claimed': { domain: string };
  'sender_domain.checked': { domain: string; status: string; ownership: boolean; spf: boolean; dkim: boolean };
  'sender_domain.released': { domain: string };
  'account.exported': { format: string; exportId: string };
  'account.imported': { format: string; from: string };
  'account.owner_email_changed': { from: string; to: string };
  'lease.expired': { activation: string; fingerprint: string; leaseExpiresAt: string };
  'lease.borrowed': { activation: string; fingerprint: string; borrowedUntil: string; days: number };
  'lease.returned': { activation: string; fingerprint: string; borrowedUntil: string; source: string };
  'api_key.created': { apiKey: string; name: string };
  'api_key.revoked': { apiKey: string; name: string };
  'member.invited': { member: string; email: string };
  'member.removed': { member: string; email: string };
  'session.signed_in': { session: string; email: string; role: string; via: string };
  'session.revoked': { session: string; email: string };
  'account.updated': { fields: string[] };
  'portal.key_revealed': { email: string };
}

export interface AuditEventRecord {
  id: string; // evt_
  accountId: string;
  type: AuditEventType;
  licenseId: string | null;
  data: Record<string, unknown>;
  createdAt: Timestamp;
  /** Who did it; absent (null) on events recorded before actors were (and on the engine's own, such as a purchase). */
  actor?: Actor | null;
  /** `actor.kind`, kept beside it so events are filtered by it. */
  actorKind?: ActorKind | null;
}
