import { defineConfig } from 'tsup';

// Two entries: the universal one (no node: built-ins) and the Node-only `./sign`.
export default defineConfig({
  entry: ['src/index.ts', 'src/sign.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
});
