import { expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without declarations
import { documentedInstalls, manifestProblems, publicPackages, tarballName } from './pack-all.mjs';

// The quick half of `check:pack` (which packs, installs and runs the tarballs in CI): what a release
// and a vendor's install need from the manifests and the READMEs, checked without packing.
const root = new URL('..', import.meta.url).pathname;
interface Pkg {
  manifest: { name: string; dependencies?: Record<string, string> };
}
const packages = publicPackages(root) as Pkg[];

/** A package and every workspace package it depends on, directly or not. */
function withWorkspaceDeps(name: string, seen = new Set<string>()): Set<string> {
  seen.add(name);
  const pkg = packages.find((p) => p.manifest.name === name);
  for (const dep of Object.keys(pkg?.manifest.dependencies ?? {})) {
    if (dep.startsWith('@svc-licensing/') && !seen.has(dep)) withWorkspaceDeps(dep, seen);
  }
  return seen;
}

it('every public package can be released as it is: version, MIT, repository, files, publishConfig, the root LICENSE', () => {
  expect(packages.map((p) => p.manifest.name)).toContain('@svc-licensing/verifier');
  expect(packages.flatMap((p) => manifestProblems(p, root) as string[])).toEqual([]);
});

it("the READMEs' npm install lines name the tarballs pack:all writes: the verifier with what it needs, and every package", () => {
  const { sdk, all } = documentedInstalls(root) as { sdk: string; all: string };
  const args = (line: string) => line.split(/\s+/).filter((arg) => arg.startsWith('./dist-packages/'));
  const tarball = (name: string) => `./dist-packages/${tarballName(name)}`;
  expect(new Set(args(sdk))).toEqual(new Set([...withWorkspaceDeps('@svc-licensing/verifier')].map(tarball)));
  expect(new Set(args(all))).toEqual(new Set(packages.map((p) => tarball(p.manifest.name))));
});

it('the pending changesets make a release plan that `changeset version` can apply: published packages only, no major before 1.0', async () => {
  const { execFile } = await import('node:child_process');
  const { mkdtemp, readFile, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = await mkdtemp(join(tmpdir(), 'changeset-status-'));
  try {
    const out = join(dir, 'plan.json');
    // `changeset status` assembles the same plan `changeset version` applies, and fails where it would
    // (a changeset naming a private package beside a published one is "mixed" and stops the release).
    await new Promise<void>((resolve, reject) =>
      execFile(process.execPath, [join(root, 'node_modules/@changesets/cli/bin.js'), 'status', '--output', out], { cwd: root }, (error, stdout, stderr) =>
        error ? reject(new Error(`${stdout}${stderr}`)) : resolve(),
      ),
    );
    const plan = JSON.parse(await readFile(out, 'utf8')) as { releases: { name: string; type: string; oldVersion: string }[] };
    const published = new Set(packages.map((p) => p.manifest.name));
    const released = plan.releases.filter((r) => r.type !== 'none');
    expect(released.map((r) => r.name).filter((name) => !published.has(name))).toEqual([]);
    expect(released.filter((r) => r.type === 'major' && r.oldVersion.startsWith('0.'))).toEqual([]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 60_000);
