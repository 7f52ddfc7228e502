// Copies the build of @svc-licensing/web (built first: it is a dev dependency of this package, so
// `pnpm -r build` orders it before us) into dist/web, which the package ships ("files": ["dist"]):
// an installed server serves the dashboard without the workspace.
import { cpSync, existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const from = join(dirname(require.resolve('@svc-licensing/web/package.json')), 'dist');
const to = new URL('../dist/web', import.meta.url).pathname;
if (!existsSync(join(from, 'manifest.json'))) {
  console.error(`copy-web: ${from} holds no build; run pnpm --filter @svc-licensing/web build first (pnpm build does it in order)`);
  process.exit(1);
}
rmSync(to, { recursive: true, force: true });
cpSync(from, to, { recursive: true });
console.log(`copy-web: ${from} -> ${to}`);
