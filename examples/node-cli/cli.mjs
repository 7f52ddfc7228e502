#!/usr/bin/env node
// A small licensed Node CLI app: `activate <key>`, `check`, `deactivate`, and for machines without
// internet `request <file>` (writes the activation request) and `import <file>` (reads the certificate). It embeds its product ID
// and public signing keys (here from the environment, so the example runs against any server),
// keeps its license in a file, and fingerprints the machine from the OS machine ID.
import { readFileSync, writeFileSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createLicenseClient, LicenseClientError } from '@svc-licensing/verifier';
import { createFileStorage, readMachineId } from '@svc-licensing/verifier/node';

const APP_VERSION = '1.4.0';
const env = process.env;

function usage(message) {
  if (message) console.error(message);
  console.error(`usage: acme-editor activate <license key> [--name <machine name>] | check | deactivate
       acme-editor request <file> [--key <license key>] [--name <machine name>]   (air-gapped machine: write the activation request)
       acme-editor import <file> [--key <license key>]                             (store the certificate file from the portal)

environment:
  SVC_BASE_URL       service address with /v1 (default http://127.0.0.1:8787/v1)
  SVC_PRODUCT        product ID (prd_...), required
  SVC_PUBLIC_KEYS    the JSON of GET /v1/products/{id}/keys, or an object kid -> base64url key, required
  SVC_LICENSE_FILE   where the license is kept (default ~/.acme-editor/license.json)
  SVC_MACHINE_ID     raw machine ID to use instead of the operating system's`);
  process.exit(2);
}

const { positionals, values } = parseArgs({ allowPositionals: true, options: { name: { type: 'string' }, key: { type: 'string' } } });
const [command, key] = positionals;
if (!['activate', 'check', 'deactivate', 'request', 'import'].includes(command ?? '')) usage();
if (command === 'activate' && !key) usage('activate needs a license key');
if ((command === 'request' || command === 'import') && !key) usage(`${command} needs a file`);
if (!env.SVC_PRODUCT || !env.SVC_PUBLIC_KEYS) usage('SVC_PRODUCT and SVC_PUBLIC_KEYS must be set');

const client = createLicenseClient({
  baseUrl: env.SVC_BASE_URL ?? 'http://127.0.0.1:8787/v1',
  product: env.SVC_PRODUCT,
  publicKeys: JSON.parse(env.SVC_PUBLIC_KEYS),
  appVersion: APP_VERSION,
  storage: createFileStorage(env.SVC_LICENSE_FILE ?? join(homedir(), '.acme-editor', 'license.json')),
  machineId: env.SVC_MACHINE_ID ?? (await readMachineId()),
});

/** Prints one JSON line: what a script can parse and a person can read. */
const print = (value) => console.log(JSON.stringify(value));

try {
  if (command === 'activate') {
    const result = await client.activate(key, { name: values.name ?? 'acme-editor CLI', platform: process.platform });
    print({ activated: result.activation, valid: result.valid, licensee: result.payload?.licensee, plan: result.payload?.plan });
    process.exit(result.valid ? 0 : 1);
  } else if (command === 'check') {
    const result = await client.check();
    print({
      valid: result.valid,
      reason: result.reason,
      offline: result.offline,
      refreshError: result.refreshError,
      licensee: result.payload?.licensee ?? null,
      entitlements: result.payload?.entitlements ?? [],
      expiresAt: result.payload ? new Date(result.payload.expiresAt * 1000).toISOString() : null,
    });
    process.exit(result.valid ? 0 : 1);
  } else if (command === 'request') {
    const text = client.createActivationRequest({
      name: values.name ?? hostname(),
      platform: process.platform,
      ...(values.key ? { key: values.key } : {}),
    });
    writeFileSync(key, `${text}\n`);
    print({ request: key, next: 'open the portal on a connected device, upload this file, and bring back the certificate file' });
  } else if (command === 'import') {
    const result = await client.importCertificate(readFileSync(key, 'utf8'), values.key ? { key: values.key } : {});
    print({ imported: true, valid: result.valid, licensee: result.payload?.licensee, expiresAt: new Date(result.payload.expiresAt * 1000).toISOString() });
  } else {
    print(await client.deactivate());
  }
} catch (error) {
  if (!LicenseClientError.is(error)) throw error;
  print({ error: { code: error.code, message: error.message } });
  process.exit(1);
}
