import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeLicenseState, emptyLicenseState, encodeLicenseState, LICENSE_STATE_FORMAT } from '../src/storage.js';
import { createFileStorage } from '../src/storage-file.js';
import { createLocalStorage, type WebStorageLike } from '../src/storage-local.js';
import { createMemoryStorage } from '../src/storage-memory.js';
import { testLicenseStorage } from './client-storage-suite.js';

const folder = mkdtempSync(join(tmpdir(), 'svc-license-storage-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The part of the browser's Web Storage the adapter uses; the real one is exercised in Chromium. */
class WebStorageStandIn implements WebStorageLike {
  readonly items = new Map<string, string>();
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }
}

testLicenseStorage('memory', () => ({ open: () => createMemoryStorage(), persistent: false }));

testLicenseStorage('localStorage', () => {
  const web = new WebStorageStandIn();
  return { open: () => createLocalStorage({ key: 'app:license', storage: web }), persistent: true };
});

let fileCounter = 0;
testLicenseStorage('file', () => {
  const path = join(folder, `case-${++fileCounter}`, 'license.json');
  return { open: () => createFileStorage(path), persistent: true };
});

describe('file storage', () => {
  it('creates the file readable by its owner only (it holds the license key), and leaves no temporary file', async () => {
    const path = join(folder, 'mode', 'deep', 'license.json');
    const storage = createFileStorage(path);
    await storage.write('{"a":1}');
    await storage.write('{"a":2}');
    expect(await readFile(path, 'utf8')).toBe('{"a":2}');
    if (process.platform !== 'win32') expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readdir(join(folder, 'mode', 'deep'))).toEqual(['license.json']);
  });

  it('reports other read failures instead of reading them as "nothing stored"', async () => {
    const path = join(folder, 'is-a-folder');
    await createFileStorage(join(path, 'x.json')).write('{}');
    await expect(createFileStorage(path).read()).rejects.toMatchObject({ code: 'EISDIR' });
  });

  it('never leaves a half-written document when the writing process is killed (kill -9) at any moment', async () => {
    const writer = fileURLToPath(new URL('./fixtures/file-storage-writer.ts', import.meta.url));
    const path = join(folder, 'crash', 'license.json');
    const seen = new Set<number>();
    for (let round = 0; round < 6; round++) {
      const child = spawn(process.execPath, ['--import', 'tsx', writer, path], {
        cwd: fileURLToPath(new URL('../../..', import.meta.url)),
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      await new Promise<void>((resolve, reject) => {
        child.once('error', reject);
        child.stdout.once('data', () => resolve());
      });
      await new Promise((resolve) => setTimeout(resolve, 15 + round * 17));
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      const document = JSON.parse(await readFile(path, 'utf8')) as { n: number; pad: string };
      expect(document.pad).toHaveLength(256 * 1024);
      seen.add(document.n);
    }
    // The writer got past its first document in at least one round, so the kill hit real rewrites.
    expect(Math.max(...seen)).toBeGreaterThan(1);
  });
});

describe('stored state document', () => {
  it('round-trips every field', () => {
    const state = {
      product: 'prd_1',
      key: 'APP-AAAAA-BBBBB',
      certificate: 'CRT1.a.b',
      highestIssuedAt: 1_767_225_600,
      refusal: 'license_revoked',
      refusalCheckedAt: 1_767_229_200,
      revocationList: 'RVL1.c.d',
      revocationSeq: 12,
      lease: { leaseSeconds: 900, leaseExpiresAt: 1_767_226_500, borrowedUntil: 1_767_830_400, issuedAt: 1_767_225_600, receivedAt: 1_767_225_600_250, ranMs: 61_000 },
      released: true,
      name: 'Laptop',
      platform: 'linux',
    };
    const text = encodeLicenseState(state);
    expect(JSON.parse(text)).toMatchObject({ format: LICENSE_STATE_FORMAT, ...state });
    expect(decodeLicenseState(text, 'prd_1')).toEqual(state);
  });

  it('reads a document written before revocation lists existed with no list and no seq', () => {
    const old = JSON.stringify({ format: LICENSE_STATE_FORMAT, product: 'prd_1', key: 'K', certificate: 'CRT1.a.b', highestIssuedAt: 5, refusal: null, refusalCheckedAt: null });
    expect(decodeLicenseState(old, 'prd_1')).toEqual({ ...emptyLicenseState('prd_1'), key: 'K', certificate: 'CRT1.a.b', highestIssuedAt: 5 });
  });

  it('reads a document written before floating seats with no lease, not released, and no name or platform', () => {
    const old = JSON.stringify({ format: LICENSE_STATE_FORMAT, product: 'prd_1', key: 'K', certificate: 'CRT1.a.b', highestIssuedAt: 5, revocationList: null, revocationSeq: null });
    expect(decodeLicenseState(old, 'prd_1')).toEqual({ ...emptyLicenseState('prd_1'), key: 'K', certificate: 'CRT1.a.b', highestIssuedAt: 5 });
    expect(emptyLicenseState('prd_1')).toMatchObject({ lease: null, released: false, name: null, platform: null });
  });

  it('reads a lease with any field missing or of the wrong type as no lease (the certificate is then timed by the wall clock)', () => {
    const lease = { leaseSeconds: 900, leaseExpiresAt: 2000, borrowedUntil: null, issuedAt: 1100, receivedAt: 1_100_000, ranMs: 0 };
    const read = (l: unknown) => decodeLicenseState(JSON.stringify({ format: LICENSE_STATE_FORMAT, product: 'prd_1', lease: l }), 'prd_1').lease;
    expect(read(lease)).toEqual(lease);
    for (const broken of [{ ...lease, ranMs: -1 }, { ...lease, issuedAt: '1100' }, { ...lease, borrowedUntil: 'soon' }, { ...lease, receivedAt: undefined }, 'lease', 7]) {
      expect(read(broken)).toBeNull();
    }
    expect(decodeLicenseState(JSON.stringify({ format: LICENSE_STATE_FORMAT, product: 'prd_1', released: 'yes' }), 'prd_1').released).toBe(false);
  });

  it('reads nothing, garbage, another format or another product as the empty state', () => {
    const other = encodeLicenseState({ ...emptyLicenseState('prd_2'), key: 'K' });
    for (const text of [null, '', 'not json', '[]', '"CRT1"', '{"format":"v0","product":"prd_1","key":"K"}', other]) {
      expect(decodeLicenseState(text, 'prd_1')).toEqual(emptyLicenseState('prd_1'));
    }
  });

  it('reads fields of the wrong type as null, keeping the rest', () => {
    const text = JSON.stringify({ format: LICENSE_STATE_FORMAT, product: 'prd_1', key: 7, certificate: 'CRT1.a.b', highestIssuedAt: -5, refusal: {} });
    expect(decodeLicenseState(text, 'prd_1')).toEqual({ ...emptyLicenseState('prd_1'), certificate: 'CRT1.a.b' });
    const fractional = JSON.stringify({ format: LICENSE_STATE_FORMAT, product: 'prd_1', highestIssuedAt: 1.5 });
    expect(decodeLicenseState(fractional, 'prd_1').highestIssuedAt).toBeNull();
    const badSeq = JSON.stringify({ format: LICENSE_STATE_FORMAT, product: 'prd_1', revocationList: 7, revocationSeq: '4' });
    expect(decodeLicenseState(badSeq, 'prd_1')).toEqual(emptyLicenseState('prd_1'));
  });
});

describe('localStorage storage', () => {
  it('keeps each product under its own item name', async () => {
    const web = new WebStorageStandIn();
    await createLocalStorage({ key: 'a', storage: web }).write('A');
    await createLocalStorage({ key: 'b', storage: web }).write('B');
    expect([...web.items.entries()]).toEqual([['a', 'A'], ['b', 'B']]);
  });

  it('says clearly when the runtime has no localStorage', () => {
    expect(() => createLocalStorage().read()).toThrow(/no localStorage/);
  });
});


