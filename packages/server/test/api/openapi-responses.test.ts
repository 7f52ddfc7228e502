import { encodeActivationRequest } from '@svc-licensing/cert-format';
import { signProviderA, signProviderB } from '@svc-licensing/provider-webhooks';
import type * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import { createDnsResolver } from '../../src/index.js';
import type { Same } from '../../src/http/contract.js';
import type { WebhookReplyView } from '../../src/http/views.js';
import type { WebhookReply } from '../../src/routes/webhooks.js';
import { fixtureJson } from '../../../../fixtures/index.js';
import { fingerprint } from '../support/fixtures.js';
import { createHarness, PUBLIC_ORIGIN, type Harness } from '../support/harness.js';
import { contractRecorder, type ContractRecorder, type Operation } from '../support/openapi-contract.js';
import { signInCustomer, type PortalHarness } from '../support/portal.js';
import { STORE_KINDS, type StoreKind } from '../support/stores.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startSmtpCapture, type SmtpCapture } from '../support/smtp-capture.js';

/**
 * Every operation of the route table is called for real, on each store, and every answer, success
 * or error, must be one the served OpenAPI document allows: a status it lists for the operation and
 * a body that validates against the schema it publishes there (draft 2020-12, by ajv). An
 * operation with no success answer here, or no error answer though it documents one, fails the
 * test: a new route has to be added to it.
 */

// The webhook receiver's reply type lives in its route; its schema must stay the same type.
const webhookReplyIsDocumented: Same<v.InferOutput<typeof WebhookReplyView>, WebhookReply> = true;
void webhookReplyIsDocumented;

const SECRET_A = 'pdl_ntfset_contract_a';
const SECRET_B = 'ls_contract_secret_b';
const DOMAIN = 'mail.contract.test';

const services: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of services.splice(0).reverse()) await s.close();
});

async function world(store: StoreKind) {
  const smtp: SmtpCapture = await startSmtpCapture({ starttls: false });
  services.push(smtp);
  const dns: TestDnsServer = await startDnsServer();
  services.push(dns);
  const h = await createHarness(
    { mode: 'in-process', store },
    { senderDomains: { resolver: createDnsResolver({ servers: [dns.address], timeoutMs: 1000 }), spfMechanism: 'include:svc.test' } },
    { smtp, webhooks: true },
  );
  return { h: Object.assign(h, { smtp }) as PortalHarness, smtp, dns };
}

/** Checks the status of a call the scenario depends on, with the body in the message. */
function must<T extends { status: number; body: any }>(answer: T, status: number): T['body'] {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  return answer.body;
}

/** The successful life of an account through every operation, with errors along the way. */
async function scenario(h: PortalHarness, dns: TestDnsServer, r: ContractRecorder) {
  const key = { authorization: `Bearer ${h.apiKey}` };
  const owner = (await h.signIn()).headers;
  const memberSession = await h.signIn({ role: 'member' });
  const member = memberSession.headers;

  must(await r.call('GET /health'), 200);
  must(await r.call('GET /ready'), 200);
  must(await r.call('GET /v1/openapi.json'), 200);

  // Products and signing keys
  const product = must(await r.call('POST /v1/products', { headers: key, json: { name: 'Editor', keyPrefix: 'EDIT', graceDays: 3, offlineDays: 14 } }), 201);
  const p = { id: product.id };
  must(await r.call('GET /v1/products', { headers: key }), 200);
  must(await r.call('GET /v1/products/{id}', { headers: key, params: p }), 200);
  must(await r.call('PATCH /v1/products/{id}', { headers: key, params: p, json: { name: 'Editor 2' } }), 200);
  must(await r.call('GET /v1/products/{id}/keys', { headers: key, params: p }), 200);
  const k2 = must(await r.call('POST /v1/products/{id}/keys', { headers: key, params: p }), 201);
  must(await r.call('POST /v1/products/{id}/keys', { headers: key, params: p }), 409); // one pending key at a time
  must(await r.call('POST /v1/products/{id}/keys/{kid}/activate', { headers: key, params: { ...p, kid: k2.kid } }), 200);
  must(await r.call('POST /v1/products/{id}/keys/{kid}/activate', { headers: key, params: { ...p, kid: 'k9' } }), 404);
  must(await r.call('POST /v1/products/{id}/keys/export', { headers: owner, params: p }), 200);

  // Plans
  const pro = must(await r.call('POST /v1/products/{id}/plans', { headers: key, params: p, json: { code: 'pro', kind: 'subscription', maxActivations: 2, entitlements: ['export'] } }), 201);
  must(await r.call('POST /v1/products/{id}/plans', { headers: key, params: p, json: { code: 'life', kind: 'perpetual', maxMajor: 3, offlineDays: 30 } }), 201);
  must(await r.call('POST /v1/products/{id}/plans', { headers: key, params: p, json: { code: 'pro', kind: 'subscription' } }), 409);
  must(await r.call('GET /v1/products/{id}/plans', { headers: key, params: p }), 200);
  must(await r.call('GET /v1/plans/{id}', { headers: key, params: { id: pro.id } }), 200);
  must(await r.call('PATCH /v1/plans/{id}', { headers: key, params: { id: pro.id }, json: { name: 'Pro' } }), 200);

  // Licenses, the client API, activations
  const paidUntil = new Date(h.clock.now() + 30 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const license = must(await r.call('POST /v1/licenses', { headers: key, json: { plan: pro.id, email: 'buyer@example.com', name: 'Ada Buyer', paidUntil } }), 201);
  const perpetual = must(await r.call('POST /v1/licenses', { headers: key, json: { product: product.id, plan: 'life', email: 'buyer@example.com' } }), 201);
  const l = { id: license.id };
  must(await r.call('GET /v1/licenses', { headers: key, query: 'status=active' }), 200);
  must(await r.call('GET /v1/licenses/{id}', { headers: key, params: l }), 200);
  must(await r.call('PATCH /v1/licenses/{id}', { headers: key, params: l, json: { seats: 2 } }), 200);
  const client = { product: product.id, key: license.key };
  const machine = (n: number) => ({ ...client, fingerprint: fingerprint(product.id, n) });
  must(await r.call('POST /v1/licenses/activate', { json: { ...machine(1), name: 'Laptop', platform: 'linux', appVersion: '2.0.0' } }), 200);
  must(await r.call('POST /v1/licenses/activate', { json: { ...client, key: 'EDIT-AAAAA-AAAAA-AAAAA-AAAAA', fingerprint: fingerprint(product.id, 1) } }), 404);
  must(await r.call('POST /v1/licenses/validate', { json: machine(1) }), 200);
  must(await r.call('POST /v1/licenses/validate', { json: machine(2) }), 404); // not_activated
  must(await r.call('POST /v1/licenses/deactivate', { json: machine(1) }), 200);
  must(await r.call('POST /v1/licenses/deactivate', { json: machine(1) }), 404);
  // The revocation list (RVL1): text, revalidated by its ETag, and the error shape for an unknown product.
  const listed = await r.call('GET /v1/products/{id}/revocations', { params: p });
  expect(listed.status).toBe(200);
  must(await r.call('GET /v1/products/{id}/revocations', { params: p, headers: { 'if-none-match': listed.headers.get('etag')! } }), 304);
  must(await r.call('GET /v1/products/{id}/revocations', { params: { id: 'prd_none' } }), 404);
  const request = (n: number) =>
    encodeActivationRequest({ v: 1, product: product.id, fingerprint: fingerprint(product.id, n), appVersion: '2.0.0', createdAt: Math.floor(h.clock.now() / 1000) });
  const offline = must(await r.call('POST /v1/activations/offline', { headers: key, json: { request: request(3), license: license.id } }), 200);
  must(await r.call('DELETE /v1/activations/{id}', { headers: key, params: { id: offline.activation } }), 200);
  must(await r.call('POST /v1/licenses/activate', { json: machine(4) }), 200);
  must(await r.call('POST /v1/licenses/activate', { json: { ...client, key: perpetual.key, fingerprint: fingerprint(product.id, 5) } }), 200);
  must(await r.call('POST /v1/licenses/{id}/send-key', { headers: key, params: l }), 200);
  must(await r.call('POST /v1/licenses/{id}/suspend', { headers: key, params: l }), 200);
  must(await r.call('POST /v1/licenses/activate', { json: machine(6) }), 403); // license_suspended
  must(await r.call('POST /v1/licenses/{id}/reinstate', { headers: key, params: l }), 200);
  must(await r.call('POST /v1/licenses/{id}/reinstate', { headers: key, params: l }), 409);
  must(await r.call('POST /v1/licenses/activate', { json: machine(7) }), 200);
  must(await r.call('POST /v1/licenses/activate', { json: machine(8) }), 200);
  must(await r.call('POST /v1/licenses/activate', { json: machine(9) }), 200);
  must(await r.call('POST /v1/licenses/activate', { json: machine(10) }), 409); // activation_limit: 2 seats x 2
  const spare = must(await r.call('POST /v1/licenses', { headers: key, json: { plan: pro.id, email: 'other@example.com', paidUntil } }), 201);
  must(await r.call('POST /v1/licenses/{id}/revoke', { headers: key, params: { id: spare.id } }), 200);
  must(await r.call('POST /v1/licenses/{id}/revoke', { headers: key, params: { id: spare.id } }), 409);
  must(await r.call('POST /v1/licenses/{id}/send-key', { headers: key, params: { id: spare.id } }), 409);

  // Customers
  const customers = must(await r.call('GET /v1/customers', { headers: key, query: 'q=buyer' }), 200);
  must(await r.call('GET /v1/customers/{id}', { headers: key, params: { id: customers.data[0].id } }), 200);

  // Integrations and the webhook receiver
  const integrationB = must(await r.call('POST /v1/integrations', {
    headers: key, json: { provider: 'provider_b', product: product.id, priceMap: { '418830': 'pro', '418823': 'life' }, webhookSecret: SECRET_B },
  }), 201);
  const integrationA = must(await r.call('POST /v1/integrations', {
    headers: key, json: { provider: 'provider_a', product: product.id, priceMap: { pri_contract: 'pro' }, webhookSecret: SECRET_A, apiKey: 'pdl_apikey_x' },
  }), 201);
  must(await r.call('POST /v1/integrations', { headers: key, json: { provider: 'provider_a', product: product.id } }), 409);
  const sandbox = must(await r.call('POST /v1/integrations', { headers: key, json: { provider: 'provider_a', product: product.id, environment: 'sandbox' } }), 201);
  must(await r.call('GET /v1/integrations', { headers: key }), 200);
  must(await r.call('GET /v1/integrations/{id}', { headers: key, params: { id: integrationA.id } }), 200);
  // A price map saved before unknown plan codes were refused: the integration answers with a warning.
  await h.store().transaction(async (tx) => {
    const stored = await tx.get('integrations', integrationB.id);
    await tx.update('integrations', { ...stored!, priceMap: { ...stored!.priceMap, var_gone: 'gone' } });
  });
  const warned = must(await r.call('GET /v1/integrations/{id}', { headers: key, params: { id: integrationB.id } }), 200);
  expect(warned.warnings.map((w: { code: string }) => w.code)).toEqual(['unknown_plan_code']);
  must(await r.call('PATCH /v1/integrations/{id}', { headers: key, params: { id: integrationA.id }, json: { apiKey: null } }), 200);
  must(await r.call('DELETE /v1/integrations/{id}', { headers: key, params: { id: sandbox.id } }), 200);
  const order = JSON.stringify(fixtureJson('provider_b', 'order_created'));
  const hook = (provider: string, integrationId: string, raw: string, signature: Record<string, string>) =>
    r.call('POST /v1/webhooks/{provider}/{integrationId}', { params: { provider, integrationId }, raw, headers: signature });
  must(await hook('provider_b', integrationB.id, order, { 'x-signature': signProviderB(order, SECRET_B) }), 200);
  must(await hook('provider_b', integrationB.id, order, { 'x-signature': signProviderB(order, SECRET_B) }), 200); // duplicate
  must(await hook('provider_b', integrationB.id, order, { 'x-signature': signProviderB(order, 'wrong') }), 401);
  must(await hook('provider_b', sandbox.id, order, { 'x-signature': signProviderB(order, SECRET_B) }), 404);
  const huge = JSON.stringify({ pad: 'x'.repeat(1024 * 1024) });
  must(await hook('provider_b', integrationB.id, huge, { 'x-signature': signProviderB(huge, SECRET_B) }), 413);
  const customer = JSON.stringify(fixtureJson('provider_a', 'customer.created'));
  must(await hook('provider_a', integrationA.id, customer, { 'provider-a-signature': signProviderA(customer, SECRET_A, Math.floor(h.clock.now() / 1000)) }), 200);
  // The incoming delivery log: processed, duplicate, refused (bad signature) and too large, each a row.
  const incoming = must(await r.call('GET /v1/integrations/{id}/deliveries', { headers: member, params: { id: integrationB.id } }), 200);
  expect(incoming.data.map((d: { result: string; reason: string | null }) => d.reason ?? d.result)).toEqual(['body_too_large', 'signature_mismatch', 'duplicate', 'processed']);
  must(await r.call('GET /v1/integrations/{id}/deliveries', { headers: key, params: { id: sandbox.id } }), 404);

  // API keys
  must(await r.call('GET /v1/api-keys', { headers: key }), 200);
  const created = must(await r.call('POST /v1/api-keys', { headers: key, json: { name: 'CI' } }), 201);
  must(await r.call('DELETE /v1/api-keys/{id}', { headers: key, params: { id: created.id } }), 200);

  // The account and its sender domain
  must(await r.call('GET /v1/account', { headers: key }), 200);
  must(await r.call('PATCH /v1/account', { headers: key, json: { senderName: 'Acme', replyTo: 'help@acme.test', portalReleaseLimit: 5 } }), 200);
  must(await r.call('POST /v1/account/owner-email', { headers: owner, json: { email: 'new-owner@vendor.test' } }), 202); // applies once its link is used
  must(await r.call('POST /v1/account/owner-email', { headers: owner, json: { email: memberSession.email } }), 409);
  must(await r.call('POST /v1/account/owner-email', { headers: key, json: { email: 'new-owner@vendor.test' } }), 400);
  must(await r.call('GET /v1/account/usage', { headers: key }), 200);
  must(await r.call('GET /v1/account/billing', { headers: key }), 200);
  must(await r.call('GET /v1/account/sender-domain', { headers: key }), 200);
  must(await r.call('POST /v1/account/sender-domain/verify', { headers: key }), 404);
  const domain = must(await r.call('POST /v1/account/sender-domain', { headers: owner, json: { domain: DOMAIN } }), 200);
  must(await r.call('POST /v1/account/sender-domain', { headers: owner, json: { domain: DOMAIN } }), 200); // the same claim again
  must(await r.call('POST /v1/account/sender-domain', { headers: owner, json: { domain: `other.${DOMAIN}` } }), 409);
  must(await r.call('POST /v1/account/sender-domain/verify', { headers: key }), 200); // failed: nothing published
  for (const record of domain.records) dns.setTxt(record.name, [record.value]);
  expect(must(await r.call('POST /v1/account/sender-domain/verify', { headers: member }), 200).status).toBe('verified');

  // Notification endpoints and their delivery log (nothing is sent here: this app runs no dispatcher)
  const hookUrl = (n: number) => `https://hooks${n}.example.test/svc`;
  const endpoint = must(await r.call('POST /v1/webhook-endpoints', { headers: owner, json: { url: hookUrl(0), description: 'CRM', events: ['license.created'] } }), 201);
  const e = { id: endpoint.id };
  must(await r.call('POST /v1/webhook-endpoints', { headers: owner, json: { url: 'http://127.0.0.1/hook' } }), 400); // refused address
  must(await r.call('GET /v1/webhook-endpoints', { headers: key }), 200);
  must(await r.call('GET /v1/webhook-endpoints/{id}', { headers: member, params: e }), 200);
  must(await r.call('PATCH /v1/webhook-endpoints/{id}', { headers: owner, params: e, json: { events: [], description: 'everything' } }), 200);
  must(await r.call('PATCH /v1/webhook-endpoints/{id}', { headers: owner, params: e, json: { url: 'https://10.0.0.8/hook' } }), 400);
  must(await r.call('POST /v1/webhook-endpoints/{id}/rotate-secret', { headers: owner, params: e }), 200);
  const sent = must(await r.call('POST /v1/webhook-endpoints/{id}/test', { headers: owner, params: e }), 202);
  must(await r.call('POST /v1/licenses', { headers: key, json: { plan: pro.id, email: 'notified@example.com', paidUntil } }), 201);
  const log = must(await r.call('GET /v1/webhook-endpoints/{id}/deliveries', { headers: member, params: e }), 200);
  expect(log.data.map((d: { type: string }) => d.type)).toEqual(['license.created', 'webhook_endpoint.test']);
  must(await r.call('POST /v1/webhook-endpoints/{id}/deliveries/{deliveryId}/resend', { headers: owner, params: { ...e, deliveryId: sent.id } }), 202);
  const spares = [];
  for (let n = 1; n < 10; n++) spares.push(must(await r.call('POST /v1/webhook-endpoints', { headers: owner, json: { url: hookUrl(n) } }), 201));
  must(await r.call('POST /v1/webhook-endpoints', { headers: owner, json: { url: hookUrl(10) } }), 409); // 10 per account
  for (const spare of spares) must(await r.call('DELETE /v1/webhook-endpoints/{id}', { headers: owner, params: { id: spare.id } }), 200);
  must(await r.call('PATCH /v1/webhook-endpoints/{id}', { headers: owner, params: e, json: { enabled: false } }), 200);
  must(await r.call('POST /v1/webhook-endpoints/{id}/test', { headers: owner, params: e }), 409);
  must(await r.call('POST /v1/webhook-endpoints/{id}/deliveries/{deliveryId}/resend', { headers: owner, params: { ...e, deliveryId: sent.id } }), 409);
  must(await r.call('PATCH /v1/webhook-endpoints/{id}', { headers: owner, params: e, json: { enabled: true } }), 200);

  // Floating seats (issue 27): a lease in every client answer, a borrow, its limits, a lapse, with the endpoint above subscribed to everything
  const team = must(await r.call('POST /v1/products/{id}/plans', {
    headers: key, params: p, json: { code: 'team', kind: 'subscription', seatMode: 'floating', maxActivations: 1, leaseSeconds: 120, maxBorrowDays: 3, maxBorrowedSeats: 1 },
  }), 201);
  must(await r.call('PATCH /v1/plans/{id}', { headers: key, params: { id: team.id }, json: { leaseSeconds: 300 } }), 200);
  const seat = must(await r.call('POST /v1/licenses', { headers: key, json: { plan: team.id, email: 'buyer@example.com', paidUntil } }), 201);
  const seatMachine = (n: number) => ({ product: product.id, key: seat.key, fingerprint: fingerprint(product.id, 100 + n) });
  expect(must(await r.call('POST /v1/licenses/activate', { json: seatMachine(1) }), 200).lease).toMatchObject({ leaseSeconds: 300, borrowedUntil: null });
  must(await r.call('POST /v1/licenses/activate', { json: seatMachine(2) }), 409); // activation_limit
  expect(must(await r.call('POST /v1/licenses/validate', { json: seatMachine(1) }), 200).lease.leaseSeconds).toBe(300);
  must(await r.call('POST /v1/licenses/borrow', { json: { ...seatMachine(1), days: 4 } }), 400);
  expect(must(await r.call('POST /v1/licenses/borrow', { json: { ...seatMachine(1), days: 2 } }), 200).lease.borrowedUntil).not.toBeNull();
  must(await r.call('GET /v1/licenses/{id}', { headers: key, params: { id: seat.id } }), 200);
  must(await r.call('POST /v1/licenses/deactivate', { json: seatMachine(1) }), 200); // lease.returned
  must(await r.call('POST /v1/licenses/activate', { json: seatMachine(2) }), 200);
  must(await r.call('PATCH /v1/licenses/{id}', { headers: key, params: { id: seat.id }, json: { maxActivations: 2 } }), 200);
  must(await r.call('POST /v1/licenses/borrow', { json: { ...seatMachine(2), days: 1 } }), 200);
  must(await r.call('POST /v1/licenses/borrow', { json: { ...seatMachine(3), days: 1 } }), 409); // borrow_limit
  must(await r.call('POST /v1/licenses/activate', { json: seatMachine(3) }), 200);
  h.clock.advance(310_000); // machine 3's lease lapses; the next check-out records it
  must(await r.call('POST /v1/licenses/activate', { json: seatMachine(4) }), 200);
  must(await r.call('POST /v1/licenses/validate', { json: seatMachine(3) }), 409); // activation_limit: its seat was taken
  const leaseLog = must(await r.call('GET /v1/webhook-endpoints/{id}/deliveries', { headers: member, params: e }), 200);
  expect(leaseLog.data.map((d: { type: string }) => d.type)).toEqual(expect.arrayContaining(['lease.borrowed', 'lease.returned', 'lease.expired']));

  // Events and the export, with every kind of record in the account by now
  must(await r.call('GET /v1/events', { headers: key, query: `license=${license.id}` }), 200);
  must(await r.call('POST /v1/account/export', { headers: owner }), 200);
  // The owner address asked for above changes once its e-mailed link is used, logged as account.owner_email_changed.
  const confirmation = h.smtp.messages.filter((m) => m.envelope.to.includes('new-owner@vendor.test')).at(-1)?.mail.text ?? '';
  const confirmPath = /\/confirm-owner-email\?token=\S+/.exec(confirmation)?.[0];
  expect(confirmPath, 'the confirmation link e-mailed to the new owner address').toBeDefined();
  expect((await h.fetch(confirmPath!, { method: 'POST', headers: { origin: PUBLIC_ORIGIN } })).status).toBe(200);
  const allEvents = must(await r.call('GET /v1/events', { headers: key }), 200);
  expect(allEvents.data.map((event: { type: string }) => event.type)).toContain('account.owner_email_changed');
  must(await r.call('DELETE /v1/account/sender-domain', { headers: owner }), 200);
  must(await r.call('DELETE /v1/account/sender-domain', { headers: owner }), 404);

  // The customer portal, as the buyer
  const a = { accountId: h.accountId };
  must(await r.call('GET /v1/portal/{accountId}', { params: a }), 200);
  must(await r.call('POST /v1/portal/{accountId}/session/link', { params: a, headers: { origin: PUBLIC_ORIGIN }, json: { email: 'nobody@example.com' } }), 202);
  const buyer = (await signInCustomer(h, h.accountId, 'buyer@example.com')).headers;
  must(await r.call('GET /v1/portal/{accountId}/session', { params: a, headers: buyer }), 200);
  must(await r.call('GET /v1/portal/{accountId}/licenses', { params: a, headers: buyer }), 200);
  const detail = must(await r.call('GET /v1/portal/{accountId}/licenses/{id}', { params: { ...a, ...l }, headers: buyer }), 200);
  must(await r.call('POST /v1/portal/{accountId}/licenses/{id}/key', { params: { ...a, ...l }, headers: buyer }), 200);
  must(await r.call('POST /v1/portal/{accountId}/licenses/{id}/send-key', { params: { ...a, ...l }, headers: buyer }), 200);
  must(await r.call('POST /v1/portal/{accountId}/licenses/{id}/send-key', { params: { ...a, id: spare.id }, headers: buyer }), 404);
  must(await r.call('DELETE /v1/portal/{accountId}/activations/{id}', { params: { ...a, id: detail.activations[0].id }, headers: buyer }), 200);
  must(await r.call('DELETE /v1/portal/{accountId}/activations/{id}', { params: { ...a, id: detail.activations[0].id }, headers: buyer }), 404);
  must(await r.call('POST /v1/portal/{accountId}/activations/offline', { params: a, headers: buyer, json: { request: request(11), license: license.id } }), 200);
  must(await r.call('POST /v1/portal/{accountId}/activations/offline', { params: a, headers: { cookie: buyer.cookie! }, json: { request: request(12) } }), 403);
  must(await r.call('DELETE /v1/portal/{accountId}/session', { params: a, headers: buyer }), 200);
  must(await r.call('GET /v1/portal/{accountId}/licenses', { params: a, headers: buyer }), 401);

  // Sign-in, sessions and members
  must(await r.call('POST /v1/session/link', { json: { email: 'owner@nowhere.test' } }), 202);
  expect(must(await r.call('GET /v1/session', { headers: key }), 200).kind).toBe('api_key');
  expect(must(await r.call('GET /v1/session', { headers: owner }), 200).kind).toBe('session');
  must(await r.call('DELETE /v1/session', { headers: key }), 400);
  must(await r.call('GET /v1/members', { headers: key }), 200);
  const invited = must(await r.call('POST /v1/members', { headers: owner, json: { email: 'new-member@vendor.test' } }), 201);
  must(await r.call('POST /v1/members', { headers: owner, json: { email: 'new-member@vendor.test' } }), 409);
  must(await r.call('DELETE /v1/members/{id}', { headers: owner, params: { id: invited.id } }), 200);
  const sessions = must(await r.call('GET /v1/sessions', { headers: owner }), 200);
  const memberId = sessions.data.find((s: { email: string }) => s.email === memberSession.email).id;
  must(await r.call('DELETE /v1/sessions/{id}', { headers: owner, params: { id: memberId } }), 200);
  must(await r.call('GET /v1/session', { headers: member }), 401);
  const second = (await h.signIn()).headers;
  must(await r.call('DELETE /v1/session', { headers: second }), 200);

  // Plan limits, and closing an account (another one, on the free plan)
  const free = await h.newAccount();
  const freeKey = { authorization: `Bearer ${free.apiKey}` };
  must(await r.call('POST /v1/products', { headers: freeKey, json: { name: 'One', keyPrefix: 'ONE' } }), 201);
  must(await r.call('POST /v1/products', { headers: freeKey, json: { name: 'Two', keyPrefix: 'TWO' } }), 402);
  const freeOwner = (await h.signIn({ accountId: free.accountId })).headers;
  must(await r.call('POST /v1/account/export', { headers: freeOwner }), 200); // an account with defaults only
  must(await r.call('POST /v1/account/close', { headers: freeOwner }), 200);
}

/** Errors every operation can be made to answer, derived from the document itself. */
async function probes(h: Harness, r: ContractRecorder & { doc: { paths: Record<string, Record<string, any>> } }) {
  const owner = (await h.signIn()).headers;
  const member = (await h.signIn({ role: 'member' })).headers;
  const key = { authorization: `Bearer ${h.apiKey}` };
  const missing = 'zzz_00000000000000000000000000';
  for (const [path, methods] of Object.entries(r.doc.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const op = `${method.toUpperCase()} ${path}` as Operation;
      const hasBody = operation.requestBody !== undefined;
      const vendor = (operation.security as unknown[]).length > 0;
      const params = Object.fromEntries([...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => [name!, name === 'accountId' ? h.accountId : missing]));
      const json = hasBody ? {} : undefined;
      if (vendor) {
        await r.call(op, { params, ...(json ? { json } : {}) }); // no credentials: 401
        if (operation['x-owner-only']) {
          await r.call(op, { params, headers: key, ...(json ? { json } : {}) }); // 400 owner_session_required
          await r.call(op, { params, headers: member, ...(json ? { json } : {}) }); // 403 forbidden
        }
      }
      const auth = vendor ? (operation['x-owner-only'] ? owner : key) : { origin: PUBLIC_ORIGIN };
      // An ID that names nothing: 404 (or the error an unauthenticated portal call gets first).
      if (path.includes('{') && !/\{accountId\}$/.test(path)) await r.call(op, { params, headers: auth, ...(json ? { json } : {}) });
      if (hasBody) {
        await r.call(op, { params, headers: auth, raw: '[1,' }); // malformed JSON: 400
        await r.call(op, { params, headers: auth, json: { unexpected: true } }); // 400
        await r.call(op, { params, headers: auth, raw: JSON.stringify({ pad: 'x'.repeat(70_000) }) }); // 413
      }
    }
  }
  must(await r.call('GET /v1/portal/{accountId}', { params: { accountId: 'acc_nothing' } }), 404);
}

/** Rate limits and readiness need an app of their own: small limits, and a store that is "down". */
async function limitsAndReadiness(store: StoreKind) {
  const smtp = await startSmtpCapture({ starttls: false });
  services.push(smtp);
  const h = await createHarness(
    { mode: 'in-process', store },
    { limits: { vendorPerAccount: 2, clientPerIp: 2, signInPerIp: 1 }, readiness: async () => 'the store is down (test)' },
    { smtp, webhooks: true },
  );
  const r = await contractRecorder(h);
  const key = { authorization: `Bearer ${h.apiKey}` };
  const activate = { product: 'prd_x', key: 'X-AAAAA-AAAAA-AAAAA-AAAAA', fingerprint: fingerprint('prd_x', 1) };
  for (let i = 0; i < 3; i++) await r.call('GET /v1/products', { headers: key });
  for (let i = 0; i < 3; i++) await r.call('POST /v1/licenses/activate', { json: activate });
  for (let i = 0; i < 2; i++) await r.call('POST /v1/session/link', { json: { email: 'owner@vendor.test' } });
  for (let i = 0; i < 2; i++) await r.call('POST /v1/portal/{accountId}/session/link', { params: { accountId: h.accountId }, json: { email: 'a@b.test' } });
  must(await r.call('GET /ready'), 503);
  const statuses = [...r.answered().values()].flatMap((s) => [...s]);
  expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(4);
  return r;
}

it('publishes a closed JSON schema for every answer of every operation: no object leaves its fields open', async () => {
  const { h } = await world('embedded');
  const { doc } = await contractRecorder(h);
  const open: string[] = [];
  const walk = (node: unknown, where: string): void => {
    if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${where}/${i}`));
    if (typeof node !== 'object' || node === null) return;
    const schema = node as Record<string, unknown>;
    // An object with named fields has no others; a map (propertyNames) states its values' schema.
    if (schema.properties !== undefined && schema.additionalProperties !== false) open.push(where);
    if (schema.type === 'object' && schema.properties === undefined && schema.propertyNames === undefined) open.push(where);
    for (const [key, value] of Object.entries(schema)) walk(value, `${where}/${key}`);
  };
  let operations = 0;
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      operations++;
      for (const [status, response] of Object.entries(operation.responses)) {
        // A 304 has no body; a text answer (the revocation list) is described by its string schema.
        if (status === '304' && response.content === undefined) continue;
        const schema = response.content?.['application/json']?.schema ?? response.content?.['text/plain']?.schema;
        if (schema === undefined) open.push(`${method} ${path} ${status}: no schema`);
        walk(schema, `${method} ${path} ${status}`);
      }
    }
  }
  for (const [name, schema] of Object.entries(doc.components.schemas)) walk(schema, `#/components/schemas/${name}`);
  expect(open).toEqual([]);
  expect(operations).toBeGreaterThanOrEqual(60);
});

describe.each(STORE_KINDS)('every operation answers as its OpenAPI document says (in-process, %s)', (store) => {
  it('calls every route for real and validates each success and error body against the published schema', async () => {
    const { h, dns } = await world(store);
    const r = await contractRecorder(h);
    await scenario(h, dns, r);
    await probes(h, r);
    const limited = await limitsAndReadiness(store);

    expect([...r.violations(), ...limited.violations()]).toEqual([]);

    // Coverage: every operation of the route table answered at least once with success, and once
    // with an error where it documents one besides 500.
    const answered = new Map(r.answered());
    for (const [op, statuses] of limited.answered()) answered.set(op, new Set([...(answered.get(op) ?? []), ...statuses]));
    const missing: string[] = [];
    for (const [path, methods] of Object.entries(r.doc.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const op = `${method.toUpperCase()} ${path}` as Operation;
        const statuses = [...(answered.get(op) ?? [])];
        if (!statuses.some((s) => s < 300)) missing.push(`${op}: no success answer`);
        const documentsErrors = Object.keys(operation.responses).some((s) => Number(s) >= 400 && Number(s) !== 500);
        if (documentsErrors && !statuses.some((s) => s >= 400)) missing.push(`${op}: no error answer`);
      }
    }
    expect(missing).toEqual([]);
  }, 120_000);
});
