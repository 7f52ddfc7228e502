import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { LicenseClientError } from './client-errors.js';

/** Options of {@link readMachineId}; tests and unusual hosts override where the ID is read from. */
export interface ReadMachineIdOptions {
  /** Default `process.platform`. */
  platform?: NodeJS.Platform;
  /** Linux/BSD files tried in order; default `/etc/machine-id`, `/var/lib/dbus/machine-id`, `/etc/hostid`. */
  files?: readonly string[];
}

const run = (file: string, args: readonly string[]): Promise<string> =>
  new Promise((resolve, reject) => {
    execFile(file, args, { timeout: 5000, windowsHide: true, encoding: 'utf8' }, (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    );
  });

async function firstFile(files: readonly string[]): Promise<string | null> {
  for (const file of files) {
    const text = await readFile(file, 'utf8').catch(() => '');
    const id = text.trim();
    if (id !== '') return id;
  }
  return null;
}

async function fromOs(platform: NodeJS.Platform, files: readonly string[]): Promise<string | null> {
  if (platform === 'darwin') {
    const out = await run('ioreg', ['-rd1', '-c', 'IOPlatformExpertDevice']);
    return /"IOPlatformUUID"\s*=\s*"([^"]+)"/.exec(out)?.[1] ?? null;
  }
  if (platform === 'win32') {
    // /reg:64 reads the 64-bit view also from a 32-bit Node or Electron.
    const out = await run('reg', ['query', 'HKLM\\SOFTWARE\\Microsoft\\Cryptography', '/v', 'MachineGuid', '/reg:64']);
    return /MachineGuid\s+REG_SZ\s+(\S+)/.exec(out)?.[1] ?? null;
  }
  return firstFile(files);
}

/**
 * Reads the operating system's stable machine identifier, the raw machine ID the spec's fingerprint
 * is computed from (pass it as `machineId` to `createLicenseClient`). Node and the Electron main
 * process only (import from `@svc-licensing/verifier/node`); an Electron renderer asks the main
 * process over IPC.
 *
 * - Linux: `/etc/machine-id` (systemd), else `/var/lib/dbus/machine-id`; BSD: `/etc/hostid`.
 * - macOS: `IOPlatformUUID` from `ioreg -rd1 -c IOPlatformExpertDevice` (the hardware UUID).
 * - Windows: `MachineGuid` under `HKLM\SOFTWARE\Microsoft\Cryptography` (64-bit registry view).
 *
 * These survive reboots and app reinstalls; they change when the OS is reinstalled, and cloned
 * virtual machines or containers may share one (a container sees its image's ID unless the host's
 * is mounted). Throws `LicenseClientError` `machine_id_unavailable` when none can be read.
 *
 * @example
 * ```ts
 * import { readMachineId } from '@svc-licensing/verifier/node';
 * const client = createLicenseClient({ ...options, machineId: await readMachineId() });
 * ```
 */
export async function readMachineId(options: ReadMachineIdOptions = {}): Promise<string> {
  const platform = options.platform ?? process.platform;
  const files = options.files ?? ['/etc/machine-id', '/var/lib/dbus/machine-id', '/etc/hostid'];
  let id: string | null;
  try {
    id = await fromOs(platform, files);
  } catch (cause) {
    throw new LicenseClientError('machine_id_unavailable', `could not read the machine ID on ${platform}`, { cause });
  }
  if (id === null || id === '') {
    throw new LicenseClientError('machine_id_unavailable', `no machine ID found on ${platform}`);
  }
  return id;
}
