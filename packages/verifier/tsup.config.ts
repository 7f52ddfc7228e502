import { resolve } from 'node:path';
import { defineConfig, type Options } from 'tsup';

type Plugin = NonNullable<Options['esbuildPlugins']>[number];

// The browser build swaps the node:crypto backend for a stub, so it holds no Node built-ins.
const browserBackend: Plugin = {
  name: 'browser-backend',
  setup(build) {
    build.onResolve({ filter: /\/backend-node\.js$/ }, (args) => ({
      path: resolve(args.resolveDir, args.path.replace(/\.js$/, '.browser.ts')),
    }));
  },
};

// The noble fallback gets its own copy of @noble/hashes/sha2.js (a distinct module for esbuild), so
// SHA-512 lands in the lazy fallback chunk instead of the chunk every browser loads for SHA-256.
const separateFallbackHashes: Plugin = {
  name: 'separate-fallback-hashes',
  setup(build) {
    build.onResolve({ filter: /^@noble\/hashes\/sha2\.js$/ }, async (args) => {
      if (!args.importer.includes('backend-noble')) return undefined;
      const resolved = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir });
      return { path: resolved.path, suffix: '?fallback' };
    });
  },
};

export default defineConfig([
  // Node and Electron (ESM + CJS), dependencies external; `./node` holds the parts needing Node built-ins.
  { entry: ['src/index.ts', 'src/node.ts'], format: ['esm', 'cjs'], dts: true, sourcemap: true, target: 'node20' },
  // Browsers (the `browser` export condition): one self-contained minified ESM file plus a lazily
  // loaded chunk holding @noble/ed25519, fetched only where WebCrypto lacks Ed25519.
  {
    entry: { index: 'src/index.ts' },
    outDir: 'dist/browser',
    format: ['esm'],
    platform: 'browser',
    target: 'es2022',
    minify: true,
    splitting: true,
    sourcemap: true,
    noExternal: [/.*/],
    esbuildPlugins: [browserBackend, separateFallbackHashes],
  },
]);
