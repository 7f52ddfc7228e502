// Column types and statement builders of the migrations (migrations.ts, initial-schema.ts).

/** A numbered change of the schema: the rules every migration follows are on `migrations` (migrations.ts). */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly statements: readonly string[];
}

export const TABLE_OPTIONS = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin';
export const ID = 'VARCHAR(64)';
export const EMAIL = 'VARCHAR(320)';
export const SHORT = 'VARCHAR(32)';
export const NAME = 'VARCHAR(191)';
export const HASH = 'VARCHAR(128)';

/** A table: `id`, the filter columns, `doc`, then the keys. Column lines start with a backquote. */
export const table = (name: string, lines: string[], idType: string = ID): string => {
  const columns = lines.filter((l) => l.startsWith('`'));
  const keys = lines.filter((l) => !l.startsWith('`'));
  const body = [`\`id\` ${idType} NOT NULL`, ...columns, '`doc` LONGTEXT NOT NULL', 'PRIMARY KEY (`id`)', ...keys];
  return `CREATE TABLE IF NOT EXISTS \`${name}\` (\n  ${body.join(',\n  ')}\n) ${TABLE_OPTIONS}`;
};

export const fk = (table: string, column: string, parent: string): string =>
  `CONSTRAINT \`fk_${table}_${column}\` FOREIGN KEY (\`${column}\`) REFERENCES \`${parent}\` (\`id\`)`;

/**
 * Adds a column and its key to an existing table only when the column is missing: MySQL 8 has no
 * `ADD COLUMN IF NOT EXISTS`, so the `ALTER` is chosen from information_schema and run as a
 * prepared statement (accepted by MySQL 8 and MariaDB alike; each statement safe to run twice).
 */
export const addColumnOnce = (table: string, column: string, alter: string): string[] => [
  `SET @svc_ddl = (SELECT IF(COUNT(*) = 0, '${alter.replace(/'/g, "''")}', 'DO 0') FROM information_schema.COLUMNS ` +
    `WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '${table}' AND COLUMN_NAME = '${column}')`,
  'PREPARE svc_ddl FROM @svc_ddl',
  'EXECUTE svc_ddl',
  'DEALLOCATE PREPARE svc_ddl',
];
