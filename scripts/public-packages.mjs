import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The packages a release publishes: every `packages/*` whose manifest is not private. */
export function publicPackages(root) {
  return readdirSync(join(root, 'packages'))
    .sort()
    .filter((dir) => existsSync(join(root, 'packages', dir, 'package.json')))
    .map((dir) => ({ dir: join(root, 'packages', dir), folder: `packages/${dir}`, manifest: JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')) }))
    .filter((p) => !p.manifest.private);
}
