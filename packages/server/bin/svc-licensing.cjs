#!/usr/bin/env node
'use strict';
// libuv sizes its thread pool once, at its first use, and Node's ES module loader already uses it:
// the size has to be set here, before the CLI (an ES module) loads. Certificates are signed in
// that pool; one core is left to the event loop, which otherwise competes with the signing
// threads (libuv's default is 4 threads whatever the core count). An explicit value is kept.
if (process.env.UV_THREADPOOL_SIZE === undefined) {
  process.env.UV_THREADPOOL_SIZE = String(Math.max(1, require('node:os').availableParallelism() - 1));
}
import('../dist/cli.js');
