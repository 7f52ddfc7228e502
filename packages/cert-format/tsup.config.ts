import { resolve } from 'node:path';
import { defineConfig, type Options } from 'tsup';

type Plugin = NonNullable<Options['esbuildPlugins']>[number];

// The `node` build swaps the JavaScript SHA-256 for node:crypto's native one (sha256.node.ts).
const nativeSha256: Plugin = {
  name: 'native-sha256',
  setup(build) {
    build.onResolve({ filter: /\/sha256\.js$/ }, (args) => ({
      path: resolve(args.resolveDir, args.path.replace(/\.js$/, '.node.ts')),
    }));
  },
};

export default defineConfig([
  // The universal build (no node: built-ins in `.`) and the Node-only `./sign`, for every runtime
  // the `node` condition does not name (browsers, bundlers targeting them).
  { entry: ['src/index.ts', 'src/sign.ts'], format: ['esm', 'cjs'], dts: true, sourcemap: true, target: 'node20' },
  // Node (the `node` export condition): the same entries hashing with node:crypto.
  { entry: ['src/index.ts', 'src/sign.ts'], outDir: 'dist/node', format: ['esm', 'cjs'], sourcemap: true, target: 'node20', esbuildPlugins: [nativeSha256] },
]);
