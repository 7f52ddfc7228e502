import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A self-signed certificate and its key (PEM), made by the `openssl` command line. */
export interface TestCertificate {
  cert: string;
  key: string;
}

/**
 * A fresh self-signed P-256 certificate valid for a day, for these names (DNS names and IP addresses).
 * It is its own CA: a sender trusting it (and only it) connects to a server presenting it.
 */
export function selfSignedCertificate(names: readonly string[]): TestCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'svc-notify-tls-'));
  try {
    const san = names.map((n) => (/^[\d.]+$|:/.test(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
      '-subj', `/CN=${names[0] ?? 'localhost'}`, '-addext', `subjectAltName=${san}`,
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: ['ignore', 'ignore', 'pipe'] });
    return { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
