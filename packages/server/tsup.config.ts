import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/mysql.ts', 'src/cli.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  // import.meta.url in the CommonJS build too: the server finds its copy of the web build next to itself.
  shims: true,
});
