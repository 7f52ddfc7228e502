import { OPERATOR_ACTOR } from '@svc-licensing/license-engine';
import { expect, it } from 'vitest';
import { fingerprint, licensed } from '../support/fixtures.js';
import { describeEverySetup } from '../support/harness.js';
import { createPortalHarness, portalCall, signInCustomer } from '../support/portal.js';

/**
 * Issue 25, should fix: security actions are in the audit log with who did them (owner, member,
 * API key, operator, customer), and `GET /v1/events?actor=` lists one kind of actor's events. None
 * of these events carries a secret, and none is sent to a webhook endpoint.
 */

describeEverySetup('security actions in the audit log, with their actor', (setup) => {
  it('records who created and revoked keys, invited and removed members, signed in, ended sessions, changed settings, exported keys, revealed a key and freed a machine', async () => {
    const h = await createPortalHarness(setup);
    const owner = await h.signIn();
    const { product, license } = await licensed(h);

    const key = await h.api('POST', '/api-keys', { name: 'CI' }, { session: owner });
    expect(key.status).toBe(201);
    const revoked = await h.api('POST', '/api-keys', { name: 'old' }, { key: key.body.key });
    expect((await h.api('DELETE', `/api-keys/${revoked.body.id}`, undefined, { key: key.body.key })).status).toBe(200);
    const invited = await h.api('POST', '/members', { email: 'mia@vendor.test' }, { session: owner });
    expect(invited.status).toBe(201);
    const member = await h.signIn({ email: 'mia@vendor.test' });
    expect((await h.api('PATCH', '/account', { portalReleaseLimit: 2, replyTo: 'help@vendor.test' }, { session: member })).status).toBe(200);
    const sessions = await h.api('GET', '/sessions', undefined, { session: owner });
    const miaSession = sessions.body.data.find((s: { email: string }) => s.email === 'mia@vendor.test');
    expect((await h.api('DELETE', `/sessions/${miaSession.id}`, undefined, { session: owner })).status).toBe(200);
    expect((await h.api('DELETE', `/members/${invited.body.id}`, undefined, { session: owner })).status).toBe(200);
    expect((await h.api('POST', `/products/${product.id}/keys/export`, undefined, { session: owner })).status).toBe(200);
    await h.engine.changeServicePlan(h.accountId, 'pro', OPERATOR_ACTOR); // as `svc account plan` does

    const activated = await h.client('activate', { product: product.id, key: license.key, fingerprint: fingerprint(product.id, 1), name: 'PC 1', platform: 'linux', appVersion: '2.1.0' });
    expect(activated.status).toBe(200);
    const customer = await signInCustomer(h, h.accountId, 'buyer@example.com');
    expect((await portalCall(h, customer, 'POST', `/licenses/${license.id}/key`)).status).toBe(200);
    expect((await portalCall(h, customer, 'DELETE', `/activations/${activated.body.activation}`)).status).toBe(200);

    const all = await h.api('GET', '/events');
    expect(all.status).toBe(200);
    const found = (type: string) => all.body.data.filter((e: { type: string }) => e.type === type);
    const ownerActor = { kind: 'owner', email: owner.email, apiKeyId: null };
    expect(found('api_key.created')).toEqual([
      expect.objectContaining({ actor: { kind: 'api_key', email: null, apiKeyId: key.body.id }, data: { apiKey: revoked.body.id, name: 'old' } }),
      expect.objectContaining({ actor: ownerActor, data: { apiKey: key.body.id, name: 'CI' } }),
    ]);
    expect(found('api_key.revoked')).toEqual([expect.objectContaining({ actor: { kind: 'api_key', email: null, apiKeyId: key.body.id } })]);
    expect(found('member.invited')).toEqual([expect.objectContaining({ actor: ownerActor, data: { member: invited.body.id, email: 'mia@vendor.test' } })]);
    expect(found('member.removed')).toEqual([expect.objectContaining({ actor: ownerActor })]);
    expect(found('session.signed_in').map((e: any) => [e.actor.kind, e.data.email, e.data.via])).toEqual([
      ['customer', 'buyer@example.com', 'portal_link'],
      ['member', 'mia@vendor.test', 'sign_in'],
      ['owner', owner.email, 'sign_in'],
    ]);
    expect(found('session.revoked')).toEqual([expect.objectContaining({ actor: ownerActor, data: { session: miaSession.id, email: 'mia@vendor.test' } })]);
    expect(found('account.updated')).toEqual([
      expect.objectContaining({ actor: { kind: 'member', email: 'mia@vendor.test', apiKeyId: null }, data: { fields: ['replyTo', 'portalReleaseLimit'] } }),
    ]);
    expect(found('signing_key.exported')).toEqual([expect.objectContaining({ actor: ownerActor })]);
    expect(found('account.plan_changed')).toEqual([expect.objectContaining({ actor: { kind: 'operator', email: null, apiKeyId: null } })]);
    const customerActor = { kind: 'customer', email: 'buyer@example.com', apiKeyId: null };
    expect(found('portal.key_revealed')).toEqual([expect.objectContaining({ license: license.id, actor: customerActor })]);
    expect(found('activation.deleted')).toEqual([expect.objectContaining({ actor: customerActor, data: expect.objectContaining({ source: 'portal' }) })]);
    // A purchase or a license made by the service's own rules has no actor; no event holds a secret.
    expect(found('license.created')[0].actor).toBeNull();
    const text = JSON.stringify(all.body);
    expect(text).not.toContain(key.body.key);
    expect(text).not.toContain(license.key);

    // Filtered by the kind of actor.
    const byKind = async (kind: string) => (await h.api('GET', `/events?actor=${kind}`)).body.data.map((e: { type: string }) => e.type);
    expect(await byKind('customer')).toEqual(['activation.deleted', 'portal.key_revealed', 'session.signed_in']);
    expect(await byKind('member')).toEqual(['account.updated', 'session.signed_in']);
    expect(await byKind('api_key')).toEqual(['api_key.revoked', 'api_key.created']);
    expect(await byKind('operator')).toEqual(['account.plan_changed']);
    expect(await byKind('owner')).toEqual(['signing_key.exported', 'member.removed', 'session.revoked', 'member.invited', 'api_key.created', 'session.signed_in']);
    const bad = await h.api('GET', '/events?actor=somebody');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_request');
  });

  it('a webhook endpoint is never sent a security event, and cannot subscribe to one', async () => {
    const h = await createPortalHarness(setup);
    const owner = await h.signIn();
    const refused = await h.api('POST', '/webhook-endpoints', { url: 'https://hooks.vendor.test/licensing', events: ['api_key.created'] }, { session: owner });
    expect(refused.status).toBe(400);
    const endpoint = await h.api('POST', '/webhook-endpoints', { url: 'https://hooks.vendor.test/licensing' }, { session: owner });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    expect((await h.api('POST', '/api-keys', { name: 'CI' }, { session: owner })).status).toBe(201);
    const deliveries = await h.api('GET', `/webhook-endpoints/${endpoint.body.id}/deliveries`, undefined, { session: owner });
    expect(deliveries.body.data).toEqual([]);
  });
});
