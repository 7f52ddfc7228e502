import { EMAIL, HASH, ID, SHORT, TABLE_OPTIONS, addColumnOnce, fk, table } from './ddl.js';
import type { Migration } from './ddl.js';
import { initial } from './initial-schema.js';

const rateLimits: Migration = {
  version: 2,
  name: 'rate-limit windows shared by every server instance',
  statements: [
    'CREATE TABLE IF NOT EXISTS `rate_limits` (\n' +
      '  `bucket` VARCHAR(191) NOT NULL,\n' +
      '  `count` BIGINT NOT NULL,\n' +
      '  `reset_at` BIGINT NOT NULL,\n' +
      '  PRIMARY KEY (`bucket`),\n' +
      '  KEY `ix_rate_limits_reset_at` (`reset_at`)\n' +
      `) ${TABLE_OPTIONS}`,
  ],
};

// Counters need no durability (a database restart only resets the windows), so they move to a
// MEMORY table: no redo log, no transaction, each hit one statement. Its old InnoDB counters are
// dropped (windows restart once). MEMORY rows are fixed-length, so the bucket is bytes (not 4-byte characters), and
// the table may grow to 256 MiB (about a million windows; the limit is fixed when the table is
// created). TiDB ignores the engine option and keeps an ordinary table, which works the same.
const rateLimitsInMemory: Migration = {
  version: 3,
  name: 'rate-limit windows in a MEMORY table',
  statements: [
    'DROP TABLE IF EXISTS `rate_limits`',
    'SET SESSION max_heap_table_size = 268435456',
    'CREATE TABLE IF NOT EXISTS `rate_limits` (\n' +
      '  `bucket` VARBINARY(191) NOT NULL,\n' +
      '  `count` BIGINT NOT NULL,\n' +
      '  `reset_at` BIGINT NOT NULL,\n' +
      '  PRIMARY KEY (`bucket`) USING HASH,\n' +
      '  KEY `ix_rate_limits_reset_at` (`reset_at`) USING BTREE\n' +
      ') ENGINE=MEMORY MAX_ROWS=1000000',
  ],
};

// Issue 13: dashboard sign-in. Accounts are found by their owner's e-mail (a sign-in request);
// members, sessions and one-time link tokens are new tables of the account.
const sessions: Migration = {
  version: 10,
  name: 'owner e-mail and status of accounts; members, sessions and link tokens',
  statements: [
    ...addColumnOnce(
      'accounts',
      'owner_email',
      `ALTER TABLE \`accounts\` ADD COLUMN \`owner_email\` ${EMAIL} NULL, ADD KEY \`ix_accounts_owner_email\` (\`owner_email\`)`,
    ),
    ...addColumnOnce(
      'accounts',
      'status',
      `ALTER TABLE \`accounts\` ADD COLUMN \`status\` ${SHORT} NULL, ADD KEY \`ix_accounts_status\` (\`status\`, \`id\`)`,
    ),
    // Accounts written before this migration: the columns copy the record's fields (the e-mail is stored lowercased).
    "UPDATE `accounts` SET `owner_email` = JSON_UNQUOTE(JSON_EXTRACT(`doc`, '$.ownerEmail')) WHERE `owner_email` IS NULL",
    "UPDATE `accounts` SET `status` = JSON_UNQUOTE(JSON_EXTRACT(`doc`, '$.status')) WHERE `status` IS NULL",
    table('members', [
      `\`account_id\` ${ID} NULL`,
      `\`email\` ${EMAIL} NULL`,
      'UNIQUE KEY `uq_members_account_id_email` (`account_id`, `email`)',
      'KEY `ix_members_account` (`account_id`, `id`)',
      'KEY `ix_members_email` (`email`)',
      fk('members', 'account_id', 'accounts'),
    ]),
    table('sessions', [
      `\`account_id\` ${ID} NULL`,
      `\`email\` ${EMAIL} NULL`,
      `\`hash\` ${HASH} NULL`,
      'UNIQUE KEY `uq_sessions_hash` (`hash`)',
      'KEY `ix_sessions_account` (`account_id`, `id`)',
      'KEY `ix_sessions_account_email` (`account_id`, `email`, `id`)',
      'KEY `ix_sessions_email` (`email`)',
      fk('sessions', 'account_id', 'accounts'),
    ]),
    table('link_tokens', [
      `\`account_id\` ${ID} NULL`,
      `\`hash\` ${HASH} NULL`,
      'UNIQUE KEY `uq_link_tokens_hash` (`hash`)',
      'KEY `ix_link_tokens_account` (`account_id`, `id`)',
      fk('link_tokens', 'account_id', 'accounts'),
    ]),
  ],
};

// Issue 13: the sender domain an account claims (at most one per account; the DKIM private key
// lives encrypted in `doc`).
const senderDomains: Migration = {
  version: 20,
  name: 'sender domains',
  statements: [
    table('sender_domains', [
      `\`account_id\` ${ID} NULL`,
      'UNIQUE KEY `uq_sender_domains_account_id` (`account_id`)',
      fk('sender_domains', 'account_id', 'accounts'),
    ]),
  ],
};

// Issue 15: the customer portal. Customer sessions are their own table (never the dashboard's);
// portal sign-in links are rows of link_tokens with their own purpose.
const customerSessions: Migration = {
  version: 30,
  name: 'customer portal sessions',
  statements: [
    table('customer_sessions', [
      `\`account_id\` ${ID} NULL`,
      `\`email\` ${EMAIL} NULL`,
      `\`hash\` ${HASH} NULL`,
      'UNIQUE KEY `uq_customer_sessions_hash` (`hash`)',
      'KEY `ix_customer_sessions_account` (`account_id`, `id`)',
      'KEY `ix_customer_sessions_account_email` (`account_id`, `email`, `id`)',
      'KEY `ix_customer_sessions_email` (`email`)',
      fk('customer_sessions', 'account_id', 'accounts'),
    ]),
  ],
};

// Issue 28: notifications to the vendor. Endpoints belong to the account; deliveries are the
// transactional outbox, claimed by `due_at` within the pending ones (see due-deliveries.ts). A
// delivery outlives its endpoint (its log, the 30-day purge): no foreign key to it.
const notifications: Migration = {
  version: 40,
  name: 'webhook endpoints and notification deliveries',
  statements: [
    table('webhook_endpoints', [
      `\`account_id\` ${ID} NULL`,
      'KEY `ix_webhook_endpoints_account` (`account_id`, `id`)',
      fk('webhook_endpoints', 'account_id', 'accounts'),
    ]),
    table('notification_deliveries', [
      `\`account_id\` ${ID} NULL`,
      `\`endpoint_id\` ${ID} NULL`,
      `\`state\` ${SHORT} NULL`,
      '`due_at` BIGINT NULL',
      'KEY `ix_notification_deliveries_account` (`account_id`, `id`)',
      'KEY `ix_notification_deliveries_endpoint` (`endpoint_id`, `id`)',
      'KEY `ix_notification_deliveries_endpoint_state` (`endpoint_id`, `state`, `id`)',
      'KEY `ix_notification_deliveries_due` (`state`, `due_at`, `id`)',
      'KEY `ix_notification_deliveries_due_at` (`due_at`)',
      fk('notification_deliveries', 'account_id', 'accounts'),
    ]),
  ],
};

// Issue 28: the log of incoming provider deliveries. One row per group of alike deliveries to an
// integration within a minute (`group_key`, unique: repeats raise its count). A row outlives its
// integration until the 30-day purge: no foreign key to it.
const incomingDeliveries: Migration = {
  version: 50,
  name: 'incoming delivery log',
  statements: [
    table('incoming_deliveries', [
      `\`account_id\` ${ID} NULL`,
      `\`integration_id\` ${ID} NULL`,
      `\`group_key\` ${HASH} NULL`,
      'UNIQUE KEY `uq_incoming_deliveries_group_key` (`group_key`)',
      'KEY `ix_incoming_deliveries_account` (`account_id`, `id`)',
      'KEY `ix_incoming_deliveries_integration` (`integration_id`, `id`)',
      fk('incoming_deliveries', 'account_id', 'accounts'),
    ]),
  ],
};

// Issue 25: audit events record their actor; `GET /events?actor=` filters by its kind. Events
// written before have none (the column stays NULL, as their record's `actorKind` is absent).
const auditActors: Migration = {
  version: 55,
  name: 'actor kind of audit events',
  statements: [
    ...addColumnOnce(
      'audit_events',
      'actor_kind',
      `ALTER TABLE \`audit_events\` ADD COLUMN \`actor_kind\` ${SHORT} NULL, ADD KEY \`ix_audit_events_account_actor_kind\` (\`account_id\`, \`actor_kind\`, \`id\`)`,
    ),
  ],
};

// Issue 29: the entries of products' signed revocation lists (RVL1). A product's list reads all its
// entries (`product_id`); the list's seq and instant live in the product's record.
const revocationEntries: Migration = {
  version: 56,
  name: 'revocation list entries',
  statements: [
    table('revocation_entries', [
      `\`account_id\` ${ID} NULL`,
      `\`product_id\` ${ID} NULL`,
      `\`license_id\` ${ID} NULL`,
      'KEY `ix_revocation_entries_account` (`account_id`, `id`)',
      'KEY `ix_revocation_entries_product` (`product_id`, `id`)',
      'KEY `ix_revocation_entries_license` (`license_id`, `id`)',
      fk('revocation_entries', 'account_id', 'accounts'),
    ]),
  ],
};

// Issue 29: a product's revocation list position (`revocationSeq`, `revocationsAt` of its record)
// moves out of its `doc` into a row of its own (product-revocations.ts): a revoke moves it with its
// last statement, and no foreign key points at that row, so revokes of one product no longer queue
// on the product row, whose lock every license write of the product checks. Every product gets its
// row (NULL where its record had no position); the fields then leave the documents. Each statement
// is safe to run twice: the rows are inserted only where missing, before any document loses them.
const productRevocations: Migration = {
  version: 60,
  name: 'revocation list positions of products in a table of their own',
  statements: [
    'CREATE TABLE IF NOT EXISTS `product_revocations` (\n' +
      `  \`product_id\` ${ID} NOT NULL,\n` +
      '  `seq` BIGINT UNSIGNED NULL,\n' +
      '  `issued_at` BIGINT NULL,\n' +
      '  PRIMARY KEY (`product_id`)\n' +
      `) ${TABLE_OPTIONS}`,
    'INSERT INTO `product_revocations` (`product_id`, `seq`, `issued_at`) ' +
      "SELECT `p`.`id`, CAST(JSON_EXTRACT(`p`.`doc`, '$.revocationSeq') AS UNSIGNED), CAST(JSON_EXTRACT(`p`.`doc`, '$.revocationsAt') AS SIGNED) " +
      'FROM `products` `p` LEFT JOIN `product_revocations` `r` ON `r`.`product_id` = `p`.`id` WHERE `r`.`product_id` IS NULL',
    "UPDATE `products` SET `doc` = JSON_REMOVE(`doc`, '$.revocationSeq', '$.revocationsAt') " +
      "WHERE JSON_CONTAINS_PATH(`doc`, 'one', '$.revocationSeq', '$.revocationsAt')",
  ],
};

/**
 * The schema, as numbered migrations. A migration is never edited once released: a change is
 * a new migration. Every statement must be safe to run twice (a crash between a statement and
 * the `schema_migrations` row re-runs it), and must be accepted by MySQL 8 and MariaDB 10.11+
 * alike (so: no `CREATE INDEX IF NOT EXISTS`, no `ADD ... IF NOT EXISTS`; keys are declared
 * inside `CREATE TABLE IF NOT EXISTS`).
 *
 * Conventions: every table has `id` as primary key, a `doc` column with the record's JSON, and
 * one column per field the engine filters on (see schema.ts). Identifiers, hashes and e-mails
 * compare byte for byte (`utf8mb4_bin`), as the engine's other stores compare them.
 *
 * Every migration, oldest first.
 */
export const migrations: readonly Migration[] = [initial, rateLimits, rateLimitsInMemory, sessions, senderDomains, customerSessions, notifications, incomingDeliveries, auditActors, revocationEntries, productRevocations];
