import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readMachineId } from '../src/client-machine-id.js';

const folder = mkdtempSync(join(tmpdir(), 'svc-machine-id-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('readMachineId', () => {
  it.runIf(process.platform === 'linux')('reads the systemd machine ID on Linux', async () => {
    const expected = (await readFile('/etc/machine-id', 'utf8').catch(() => readFile('/var/lib/dbus/machine-id', 'utf8'))).trim();
    expect(await readMachineId()).toBe(expected);
  });

  it('takes the first file that holds an ID, trimmed, skipping missing and empty ones', async () => {
    writeFileSync(join(folder, 'empty'), '\n');
    writeFileSync(join(folder, 'id'), '  0123456789abcdef\n');
    const files = [join(folder, 'missing'), join(folder, 'empty'), join(folder, 'id')];
    expect(await readMachineId({ platform: 'linux', files })).toBe('0123456789abcdef');
  });

  it('fails with machine_id_unavailable when no ID can be read', async () => {
    await expect(readMachineId({ platform: 'linux', files: [join(folder, 'missing')] })).rejects.toMatchObject({
      name: 'LicenseClientError',
      code: 'machine_id_unavailable',
    });
  });
});
