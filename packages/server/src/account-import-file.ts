import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { JSONParser } from '@streamparser/json-node';
import type { AccountExportItem, SigningKeyExport } from '@svc-licensing/license-engine';
import { ConfigError } from './config.js';

/** Top-level fields read whole; every other top-level value is a list read one element at a time. */
const FIELDS = ['format', 'exportedAt', 'exportId', 'account', 'senderDomain'];

/**
 * Reads an `svc-account-export-v1` file as a stream of items (`svc account import`): the top-level
 * fields whole, the list sections one record at a time, so a file of any size is parsed in
 * constant memory. Rejects when the file is not JSON or ends before the document does (an export
 * cut short), so an import of it writes nothing.
 *
 * @example
 * ```ts
 * for await (const { section, value } of readAccountExportFile('export.json')) console.log(section);
 * ```
 */
export async function* readAccountExportFile(path: string): AsyncGenerator<AccountExportItem> {
  const parser = new JSONParser({ paths: [...FIELDS.map((f) => `$.${f}`), '$.*.*'], keepStack: false });
  const input = createReadStream(path);
  input.on('error', (error) => parser.destroy(error));
  input.pipe(parser);
  try {
    for await (const item of parser as AsyncIterable<{ key: string | number; value: unknown; stack: { key: string | number | undefined }[] }>) {
      const top = item.stack[1]?.key;
      if (top === undefined) {
        if (typeof item.key === 'string' && FIELDS.includes(item.key)) yield { section: item.key, value: item.value };
      } else if (typeof top === 'string' && !FIELDS.includes(top)) {
        yield { section: top, value: item.value }; // an element of a list section (or of an unknown one: refused by the import)
      }
    }
  } finally {
    input.destroy();
  }
}

/**
 * Reads one key export (`svc-signing-keys-v1`, from `POST /products/{id}/keys/export`).
 *
 * @example
 * ```ts
 * const keys = await readKeyExportFile('acme-editor-keys.json');
 * ```
 */
export async function readKeyExportFile(path: string): Promise<SigningKeyExport> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read the key export ${path}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text) as SigningKeyExport;
  } catch {
    throw new ConfigError(`the key export ${path} is not JSON`);
  }
}
