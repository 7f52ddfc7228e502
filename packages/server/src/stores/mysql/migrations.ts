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
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly statements: readonly string[];
}

const TABLE_OPTIONS = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin';
const ID = 'VARCHAR(64)';
const EMAIL = 'VARCHAR(320)';
const SHORT = 'VARCHAR(32)';
const NAME = 'VARCHAR(191)';
const HASH = 'VARCHAR(128)';

/** A table: `id`, the filter columns, `doc`, then the keys. Column lines start with a backquote. */
const table = (name: string, lines: string[], idType: string = ID): string => {
  const columns = lines.filter((l) => l.startsWith('`'));
  const keys = lines.filter((l) => !l.startsWith('`'));
  const body = [`\`id\` ${idType} NOT NULL`, ...columns, '`doc` LONGTEXT NOT NULL', 'PRIMARY KEY (`id`)', ...keys];
  return `CREATE TABLE IF NOT EXISTS \`${name}\` (\n  ${body.join(',\n  ')}\n) ${TABLE_OPTIONS}`;
};

const fk = (table: string, column: string, parent: string): string =>
  `CONSTRAINT \`fk_${table}_${column}\` FOREIGN KEY (\`${column}\`) REFERENCES \`${parent}\` (\`id\`)`;

const initial: Migration = {
  version: 1,
  name: 'tables, keys and indexes of every collection',
  statements: [
    table('accounts', []),
    table('api_keys', [
      `\`account_id\` ${ID} NULL`,
      `\`hash\` ${HASH} NULL`,
      'UNIQUE KEY `uq_api_keys_hash` (`hash`)',
      'KEY `ix_api_keys_account` (`account_id`, `id`)',
      fk('api_keys', 'account_id', 'accounts'),
    ]),
    table('products', [
      `\`account_id\` ${ID} NULL`,
      'KEY `ix_products_account` (`account_id`, `id`)',
      fk('products', 'account_id', 'accounts'),
    ]),
    table('signing_keys', [
      `\`account_id\` ${ID} NULL`,
      `\`product_id\` ${ID} NULL`,
      `\`kid\` ${SHORT} NULL`,
      `\`status\` ${SHORT} NULL`,
      'UNIQUE KEY `uq_signing_keys_product_id_kid` (`product_id`, `kid`)',
      'KEY `ix_signing_keys_account_product` (`account_id`, `product_id`, `id`)',
      'KEY `ix_signing_keys_product` (`product_id`, `id`)',
      'KEY `ix_signing_keys_product_status` (`product_id`, `status`, `id`)',
      'KEY `ix_signing_keys_kid` (`kid`)',
      fk('signing_keys', 'account_id', 'accounts'),
      fk('signing_keys', 'product_id', 'products'),
    ]),
    table('plans', [
      `\`account_id\` ${ID} NULL`,
      `\`product_id\` ${ID} NULL`,
      `\`code\` ${NAME} NULL`,
      'UNIQUE KEY `uq_plans_product_id_code` (`product_id`, `code`)',
      'KEY `ix_plans_account_product` (`account_id`, `product_id`, `id`)',
      'KEY `ix_plans_product` (`product_id`, `id`)',
      'KEY `ix_plans_code` (`code`)',
      fk('plans', 'account_id', 'accounts'),
      fk('plans', 'product_id', 'products'),
    ]),
    table('customers', [
      `\`account_id\` ${ID} NULL`,
      `\`email\` ${EMAIL} NULL`,
      '`name` TEXT NULL',
      'UNIQUE KEY `uq_customers_account_id_email` (`account_id`, `email`)',
      'KEY `ix_customers_account` (`account_id`, `id`)',
      'KEY `ix_customers_email` (`email`)',
      fk('customers', 'account_id', 'accounts'),
    ]),
    table('licenses', [
      `\`account_id\` ${ID} NULL`,
      `\`product_id\` ${ID} NULL`,
      `\`plan_id\` ${ID} NULL`,
      `\`customer_id\` ${ID} NULL`,
      `\`customer_email\` ${EMAIL} NULL`,
      '`customer_name` TEXT NULL',
      `\`status\` ${SHORT} NULL`,
      `\`key_hash\` ${HASH} NULL`,
      `\`integration_id\` ${ID} NULL`,
      `\`subscription_id\` ${NAME} NULL`,
      `\`order_id\` ${NAME} NULL`,
      'UNIQUE KEY `uq_licenses_key_hash` (`key_hash`)',
      // Vendor lists: newest first within the account, filtered by product, status, e-mail.
      'KEY `ix_licenses_account` (`account_id`, `id`)',
      'KEY `ix_licenses_account_product` (`account_id`, `product_id`, `id`)',
      'KEY `ix_licenses_account_status` (`account_id`, `status`, `id`)',
      'KEY `ix_licenses_account_product_status` (`account_id`, `product_id`, `status`, `id`)',
      'KEY `ix_licenses_account_email` (`account_id`, `customer_email`, `id`)',
      // Lookups by relation (a customer's licenses, a plan's, a subscription's, an order's).
      'KEY `ix_licenses_customer` (`customer_id`, `id`)',
      'KEY `ix_licenses_plan` (`plan_id`, `id`)',
      'KEY `ix_licenses_integration` (`integration_id`, `id`)',
      'KEY `ix_licenses_subscription` (`subscription_id`)',
      'KEY `ix_licenses_order` (`order_id`)',
      'KEY `ix_licenses_product_status` (`product_id`, `status`, `id`)',
      'KEY `ix_licenses_customer_email` (`customer_email`)',
      fk('licenses', 'account_id', 'accounts'),
      fk('licenses', 'product_id', 'products'),
      fk('licenses', 'plan_id', 'plans'),
      fk('licenses', 'customer_id', 'customers'),
    ]),
    table('activations', [
      `\`account_id\` ${ID} NULL`,
      `\`license_id\` ${ID} NULL`,
      `\`fingerprint\` ${HASH} NULL`,
      'UNIQUE KEY `uq_activations_license_id_fingerprint` (`license_id`, `fingerprint`)',
      'KEY `ix_activations_license` (`license_id`, `id`)',
      'KEY `ix_activations_account` (`account_id`, `id`)',
      'KEY `ix_activations_fingerprint` (`fingerprint`)',
      fk('activations', 'account_id', 'accounts'),
      fk('activations', 'license_id', 'licenses'),
    ]),
    table('integrations', [
      `\`account_id\` ${ID} NULL`,
      `\`product_id\` ${ID} NULL`,
      `\`provider\` ${SHORT} NULL`,
      `\`environment\` ${SHORT} NULL`,
      'UNIQUE KEY `uq_integrations_product_id_provider_environment` (`product_id`, `provider`, `environment`)',
      'KEY `ix_integrations_account_product` (`account_id`, `product_id`, `id`)',
      'KEY `ix_integrations_account` (`account_id`, `id`)',
      'KEY `ix_integrations_provider` (`provider`, `environment`)',
      fk('integrations', 'account_id', 'accounts'),
      fk('integrations', 'product_id', 'products'),
    ]),
    table('provider_customers', [
      `\`account_id\` ${ID} NULL`,
      `\`integration_id\` ${ID} NULL`,
      `\`provider_customer_id\` ${NAME} NULL`,
      'UNIQUE KEY `uq_provider_customers_integration_id_provider_customer_id` (`integration_id`, `provider_customer_id`)',
      'KEY `ix_provider_customers_account` (`account_id`, `id`)',
      'KEY `ix_provider_customers_provider_customer` (`provider_customer_id`)',
      fk('provider_customers', 'account_id', 'accounts'),
    ]),
    table('processed_events', [
      `\`account_id\` ${ID} NULL`,
      `\`integration_id\` ${ID} NULL`,
      `\`event_id\` ${NAME} NULL`,
      'UNIQUE KEY `uq_processed_events_integration_id_event_id` (`integration_id`, `event_id`)',
      'KEY `ix_processed_events_account` (`account_id`, `id`)',
      'KEY `ix_processed_events_event` (`event_id`)',
      fk('processed_events', 'account_id', 'accounts'),
    ]),
    table('audit_events', [
      `\`account_id\` ${ID} NULL`,
      `\`license_id\` ${ID} NULL`,
      `\`type\` ${NAME} NULL`,
      'KEY `ix_audit_events_account` (`account_id`, `id`)',
      'KEY `ix_audit_events_account_license` (`account_id`, `license_id`, `id`)',
      'KEY `ix_audit_events_account_type` (`account_id`, `type`, `id`)',
      'KEY `ix_audit_events_license` (`license_id`, `id`)',
      fk('audit_events', 'account_id', 'accounts'),
    ]),
    // Short-lived rows keyed by the caller: no foreign keys, so they never wait on a parent row.
    table('email_reservations', [`\`account_id\` ${ID} NULL`, 'KEY `ix_email_reservations_account` (`account_id`, `id`)']),
    // Counter IDs are caller-built (`email:<accountId>:<hour>`), hence longer.
    table('counters', [`\`account_id\` ${ID} NULL`, 'KEY `ix_counters_account` (`account_id`, `id`)'], NAME),
  ],
};

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

/**
 * Adds a column and its key to an existing table only when the column is missing: MySQL 8 has no
 * `ADD COLUMN IF NOT EXISTS`, so the `ALTER` is chosen from information_schema and run as a
 * prepared statement (accepted by MySQL 8 and MariaDB alike; each statement safe to run twice).
 */
const addColumnOnce = (table: string, column: string, alter: string): string[] => [
  `SET @svc_ddl = (SELECT IF(COUNT(*) = 0, '${alter.replace(/'/g, "''")}', 'DO 0') FROM information_schema.COLUMNS ` +
    `WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '${table}' AND COLUMN_NAME = '${column}')`,
  'PREPARE svc_ddl FROM @svc_ddl',
  'EXECUTE svc_ddl',
  'DEALLOCATE PREPARE svc_ddl',
];

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

/** Every migration, oldest first. */
export const migrations: readonly Migration[] = [initial, rateLimits, rateLimitsInMemory, sessions, senderDomains, customerSessions];
