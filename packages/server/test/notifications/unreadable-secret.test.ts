import { describe, expect, it } from 'vitest';
import type { Harness } from '../support/harness.js';
import { STORE_KINDS } from '../support/stores.js';
import { key, productAndPlan, world } from './support/api-world.js';

// An endpoint whose stored signing secret no longer opens (a damaged row, a secret sealed under
// another installation's master key) must not stall the deliveries of every other endpoint on the
// instance: each claim of due deliveries used to open the secrets of every endpoint it claimed for
// and threw on the first that failed, so nothing was sent to anyone. The sealed secret is damaged
// in the store itself (the row's JSON on MariaDB, a record written through the store on the
// embedded one), beside a healthy endpoint of another account that a real receiver verifies.

/** Changes one character in the middle of the endpoint's sealed secret, as stored. */
function damaged(sealed: string): string {
  const i = Math.floor(sealed.length / 2);
  return sealed.slice(0, i) + (sealed[i] === 'A' ? 'B' : 'A') + sealed.slice(i + 1);
}

async function damageStoredSecret(h: Harness, endpointId: string): Promise<void> {
  const location = h.storeLocation;
  if (location.kind === 'mysql') {
    const table = `\`${location.db.name}\`.\`webhook_endpoints\``;
    const [row] = await location.db.admin<{ secret: string }[]>(`SELECT JSON_UNQUOTE(JSON_EXTRACT(\`doc\`, '$.secret')) AS secret FROM ${table} WHERE \`id\` = ?`, [endpointId]);
    await location.db.admin(`UPDATE ${table} SET \`doc\` = JSON_SET(\`doc\`, '$.secret', ?) WHERE \`id\` = ?`, [damaged(row!.secret), endpointId]);
    return;
  }
  await h.store().transaction(async (tx) => {
    const endpoint = (await tx.get('webhookEndpoints', endpointId, { lock: true }))!;
    await tx.update('webhookEndpoints', { ...endpoint, secret: damaged(endpoint.secret) });
  });
}

describe.each(STORE_KINDS)('an endpoint whose stored secret does not open (%s)', (store) => {
  it('is disabled (secret_unreadable) and its owner e-mailed while other endpoints get theirs; rotating and enabling sends what it held', async () => {
    const w = await world(store);
    const healthy = await w.endpoint({ events: ['license.created'] });
    const other = await w.h.newAccount();
    const otherKey = { authorization: `Bearer ${other.apiKey}` };
    const broken = await w.post('/v1/webhook-endpoints', { url: w.receiver.url('/hooks/broken'), events: ['license.created'] }, otherKey);
    expect(broken.status, JSON.stringify(broken.body)).toBe(201);
    await damageStoredSecret(w.h, broken.body.id);

    // The broken endpoint's delivery is queued first: claims take the soonest due first.
    await w.post('/v1/licenses', { plan: await productAndPlan(w, otherKey), email: 'held@example.com' }, otherKey);
    await w.post('/v1/licenses', { plan: await productAndPlan(w), email: 'sent@example.com' }, key(w));
    await w.until(() => w.receiver.received.length === 1, 'the healthy endpoint\'s delivery');
    expect(w.receiver.received[0]).toMatchObject({ path: '/hooks/svc', verifiedWith: [healthy.secret] });
    expect((w.receiver.received[0]!.payload as any).data.customer.email).toBe('sent@example.com');

    const asOther = (method: string, path: string, body?: unknown) => w.h.api(method, path, body, { key: other.apiKey });
    await w.until(async () => (await asOther('GET', `/webhook-endpoints/${broken.body.id}`)).body.enabled === false, 'the broken endpoint disabled');
    expect((await asOther('GET', `/webhook-endpoints/${broken.body.id}`)).body).toMatchObject({ enabled: false, disabledReason: 'secret_unreadable' });
    const held = (await asOther('GET', `/webhook-endpoints/${broken.body.id}/deliveries`)).body.data;
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ type: 'license.created', status: 'pending', attempts: [] });
    // Logged once, with the reason and without a secret; the claims went on (no outbox error).
    expect(w.logged.filter((line) => line.includes('endpoint_disabled'))).toEqual([
      JSON.stringify({ msg: 'endpoint_disabled', endpointId: broken.body.id, reason: 'secret_unreadable' }),
    ]);
    expect(w.logged.filter((line) => line.includes('outbox_error') || line.includes('whsec_'))).toEqual([]);
    const [mail] = await w.smtp.waitFor(1);
    expect(mail!.envelope.to).toEqual([(await asOther('GET', '/account')).body.ownerEmail]);
    expect(mail!.mail.text).toContain('signing secret can no longer be read');
    expect(mail!.mail.text).toContain(w.receiver.url('/hooks/broken'));

    // The owner's way back: a new secret (the unreadable one does not sign beside it), then enable.
    const rotated = await asOther('POST', `/webhook-endpoints/${broken.body.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.previousSecretExpiresAt).toBeNull();
    w.receiver.secrets.push(rotated.body.secret);
    expect((await asOther('PATCH', `/webhook-endpoints/${broken.body.id}`, { enabled: true })).status).toBe(200);
    await w.until(() => w.receiver.received.length === 2, 'the held delivery');
    expect(w.receiver.received[1]).toMatchObject({ path: '/hooks/broken', verifiedWith: [rotated.body.secret] });
    expect((w.receiver.received[1]!.payload as any).data.customer.email).toBe('held@example.com');
    expect((await asOther('GET', `/webhook-endpoints/${broken.body.id}`)).body).toMatchObject({ enabled: true, disabledReason: null });
  });
});
