// Preloaded into a server process by tail.ts (`node --require`): where a request's wall time goes.
// Records, until the next SIGUSR2: each request's time in the server (Node's 'request' event to
// the answer's 'finish'), each wait for a pooled MariaDB connection, each MariaDB command (queued
// on its connection to its answer), each Redis command (sent to its answer), the event loop's
// delay (1 ms resolution) and V8's garbage-collection pauses. On SIGUSR2 it writes what it saw to
// TAIL_PROBE_OUT as JSON and starts over. Measures only; changes nothing the server does.
'use strict';
const { createRequire } = require('node:module');
const { writeFileSync } = require('node:fs');
const http = require('node:http');
const { monitorEventLoopDelay, PerformanceObserver, performance } = require('node:perf_hooks');

const fromServer = createRequire(require('node:path').join(__dirname, '../../packages/server/package.json'));
const out = process.env.TAIL_PROBE_OUT;
let series = { request: [], poolWait: [], mysql: [], redis: [], gc: [], gcMajor: [] };
let loop = monitorEventLoopDelay({ resolution: 1 });
loop.enable();

const timed = (name, start) => series[name].push(performance.now() - start);

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, req, res) {
  if (event === 'request') {
    const start = performance.now();
    res.once('finish', () => timed('request', start));
  }
  return emit.apply(this, arguments);
};

const mysql = fromServer('mysql2');
let base = mysql.Connection.prototype;
while (base && !Object.prototype.hasOwnProperty.call(base, 'addCommand')) base = Object.getPrototypeOf(base);
const addCommand = base.addCommand;
base.addCommand = function (cmd) {
  const start = performance.now();
  if (cmd && typeof cmd.once === 'function' && cmd.constructor.name !== 'ClientHandshake') cmd.once('end', () => timed('mysql', start));
  return addCommand.apply(this, arguments);
};
const getConnection = mysql.Pool.prototype.getConnection;
mysql.Pool.prototype.getConnection = function (cb) {
  const start = performance.now();
  return getConnection.call(this, (error, connection) => {
    timed('poolWait', start);
    cb(error, connection);
  });
};

try {
  const Redis = fromServer('ioredis');
  const proto = (Redis.default || Redis).prototype;
  const sendCommand = proto.sendCommand;
  proto.sendCommand = function (command) {
    const start = performance.now();
    const result = sendCommand.apply(this, arguments);
    if (command && command.promise) command.promise.then(() => timed('redis', start), () => timed('redis', start));
    return result;
  };
} catch {
  // no ioredis: the embedded store
}

new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) (entry.detail?.kind === 1 ? series.gc : series.gcMajor).push(entry.duration); // 1: scavenge (minor)
}).observe({ entryTypes: ['gc'] });

const summary = (values) => {
  const sorted = Float64Array.from(values).sort();
  const at = (p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] : 0);
  const sum = values.reduce((a, b) => a + b, 0);
  return { count: values.length, mean: values.length ? sum / values.length : 0, p50: at(50), p90: at(90), p99: at(99), max: sorted.length ? sorted[sorted.length - 1] : 0, sum };
};

process.on('SIGUSR2', () => {
  const report = Object.fromEntries(Object.entries(series).map(([name, values]) => [name, summary(values)]));
  report.loopDelay = { mean: loop.mean / 1e6, p50: loop.percentile(50) / 1e6, p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 };
  if (out) writeFileSync(out, JSON.stringify(report));
  series = { request: [], poolWait: [], mysql: [], redis: [], gc: [], gcMajor: [] };
  loop.reset();
});
