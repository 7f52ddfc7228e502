/**
 * A child-process server for the SIGTERM test: serves the app with a `/v1/slow` route that
 * answers only after a second, prints `url <url>` once listening and `slow-started` when the slow
 * request arrives, and relies on `listen`'s own SIGTERM handling.
 */
import {
  createIdGenerator, createLicenseEngine, createMemoryStore, createSecretBox, cryptoRandom, systemClock,
} from '@svc-licensing/license-engine';
import { createApp, defineRoute, listen } from '../../src/index.js';

const engine = createLicenseEngine({
  store: createMemoryStore(),
  clock: systemClock,
  random: cryptoRandom,
  ids: createIdGenerator({ clock: systemClock, random: cryptoRandom }),
  secrets: createSecretBox(new Uint8Array(32).fill(7)),
});
const slow = defineRoute({
  method: 'GET', path: '/v1/slow', api: 'public', tag: 'Test', summary: 'Answers after a second',
  handler: async () => {
    process.stdout.write('slow-started\n');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    return { done: true };
  },
});
const server = await listen(createApp({ engine, publicBaseUrl: 'http://x.test', log: false, routes: [slow] }), { port: 0 });
process.stdout.write(`url ${server.url}\n`);
