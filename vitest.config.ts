import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (name: string) => fileURLToPath(new URL(`./packages/${name}/src/index.ts`, import.meta.url));

// Tests import sibling packages from source, so `vitest run` needs no build;
// only tests that load a built bundle (the browser test) depend on `pnpm build`.
export default defineConfig({
  resolve: {
    alias: {
      '@svc-licensing/cert-format': src('cert-format'),
      '@svc-licensing/verifier': src('verifier'),
      '@svc-licensing/license-engine': src('license-engine'),
      '@svc-licensing/provider-webhooks': src('provider-webhooks'),
      '@svc-licensing/server': src('server'),
    },
  },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'test-vectors/**/*.test.ts', 'scripts/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
