import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410); the raw 32-byte key follows. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * Verifies a CRT1 certificate with the `openssl pkeyutl -verify -rawin` command line: an Ed25519
 * implementation independent of ours. Returns true when OpenSSL prints a successful verification.
 */
export function opensslVerifiesCertificate(certificate: string, publicKeyBase64url: string): boolean {
  const [prefix, payload, signature] = certificate.split('.');
  const dir = mkdtempSync(join(tmpdir(), 'svc-openssl-'));
  try {
    const der = Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(publicKeyBase64url, 'base64url')]);
    const pem = `-----BEGIN PUBLIC KEY-----\n${der.toString('base64')}\n-----END PUBLIC KEY-----\n`;
    writeFileSync(join(dir, 'key.pem'), pem);
    writeFileSync(join(dir, 'input.bin'), Buffer.from(`${prefix}.${payload}`, 'ascii'));
    writeFileSync(join(dir, 'sig.bin'), Buffer.from(signature ?? '', 'base64url'));
    try {
      const out = execFileSync(
        'openssl',
        ['pkeyutl', '-verify', '-pubin', '-inkey', join(dir, 'key.pem'), '-rawin', '-in', join(dir, 'input.bin'), '-sigfile', join(dir, 'sig.bin')],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
      );
      return out.includes('Signature Verified Successfully');
    } catch {
      return false;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
