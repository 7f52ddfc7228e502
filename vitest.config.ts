import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const pkg = (path: string) => fileURLToPath(new URL(`./packages/${path}`, import.meta.url));

// Tests import sibling packages from source, so `vitest run` needs no build;
// only tests that load a built bundle (the browser test) depend on `pnpm build`.
// Each subpath export of a package gets its own exact alias.
const entries: Record<string, string> = {
  '@svc-licensing/cert-format': 'cert-format/src/index.ts',
  '@svc-licensing/cert-format/sign': 'cert-format/src/sign.ts',
  '@svc-licensing/verifier': 'verifier/src/index.ts',
  '@svc-licensing/verifier/node': 'verifier/src/node.ts',
  '@svc-licensing/license-engine': 'license-engine/src/index.ts',
  '@svc-licensing/license-engine/testing': 'license-engine/src/testing.ts',
  '@svc-licensing/provider-webhooks': 'provider-webhooks/src/index.ts',
  '@svc-licensing/server': 'server/src/index.ts',
  '@svc-licensing/server/mysql': 'server/src/mysql.ts',
};

export default defineConfig({
  resolve: {
    alias: Object.entries(entries).map(([name, path]) => ({
      find: new RegExp(`^${name.replace(/[/.]/g, '\\$&')}$`),
      replacement: pkg(path),
    })),
  },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'e2e/**/*.test.ts', 'test-vectors/**/*.test.ts', 'scripts/**/*.test.ts', 'benchmarks/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
