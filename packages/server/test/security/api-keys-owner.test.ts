import { expect, it } from 'vitest';
import { createHarness, describeEverySetup } from '../support/harness.js';

/**
 * Issue 25, item 2: a member could create API keys and revoke any key (the owner's included), and
 * removing the member ended their sessions but not their keys, which kept full vendor API access.
 * API keys are the owner's now: created and revoked by the owner's session or an API key, never by
 * a member; each key records who created it, and the owner sees it.
 */
describeEverySetup('API keys belong to the owner', (setup) => {
  it('a member can neither create a key nor revoke one (403), so a removed member holds none', async () => {
    const h = await createHarness(setup);
    const member = await h.signIn({ role: 'member' });
    const created = await h.api('POST', '/api-keys', { name: 'my own way in' }, { session: member });
    expect(created.status).toBe(403);
    expect(created.body.error.code).toBe('forbidden');
    const before = (await h.api('GET', '/api-keys', undefined, { session: member })).body.data;
    expect(before).toHaveLength(1); // the account's first key, made by the operator

    const revoked = await h.api('DELETE', `/api-keys/${before[0].id}`, undefined, { session: member });
    expect(revoked.status).toBe(403);
    expect((await h.api('GET', '/products')).status).toBe(200); // the owner's key still works

    // Removing the member leaves no credential of theirs behind.
    const owner = await h.signIn();
    const members = (await h.api('GET', '/members', undefined, { session: owner })).body.data;
    const removed = await h.api('DELETE', `/members/${members[0].id}`, undefined, { session: owner });
    expect(removed.status).toBe(200);
    expect((await h.api('GET', '/session', undefined, { session: member })).status).toBe(401);
    expect((await h.api('GET', '/api-keys')).body.data.map((k: { id: string }) => k.id)).toEqual([before[0].id]);
  });

  it('the owner (session) and API keys create and revoke keys; each key says who created it', async () => {
    const h = await createHarness(setup);
    const owner = await h.signIn();
    const byOwner = await h.api('POST', '/api-keys', { name: 'billing backend' }, { session: owner });
    expect(byOwner.status).toBe(201);
    expect(byOwner.body.createdBy).toEqual({ kind: 'owner', email: owner.email, apiKeyId: null });
    const self = (await h.api('GET', '/session')).body.apiKeyId as string;
    const byKey = await h.api('POST', '/api-keys', { name: 'rotated by CI' });
    expect(byKey.status).toBe(201);
    expect(byKey.body.createdBy).toEqual({ kind: 'api_key', email: null, apiKeyId: self });

    const listed = (await h.api('GET', '/api-keys', undefined, { session: owner })).body.data as Array<{ id: string; createdBy: unknown }>;
    expect(Object.fromEntries(listed.map((k) => [k.id, k.createdBy]))).toEqual({
      [self]: { kind: 'operator', email: null, apiKeyId: null },
      [byOwner.body.id]: { kind: 'owner', email: owner.email, apiKeyId: null },
      [byKey.body.id]: { kind: 'api_key', email: null, apiKeyId: self },
    });
    expect((await h.api('DELETE', `/api-keys/${byKey.body.id}`, undefined, { session: owner })).status).toBe(200);
    expect((await h.api('DELETE', `/api-keys/${byOwner.body.id}`)).status).toBe(200);
    expect((await h.api('GET', '/products', undefined, { key: byOwner.body.key })).status).toBe(401);
  });

  it('a key stored before creators were recorded is listed with createdBy null', async () => {
    const h = await createHarness(setup);
    await h.store().transaction(async (tx) => {
      const [key] = await tx.findMany('apiKeys', { accountId: h.accountId });
      const { createdBy: _createdBy, ...older } = key!;
      await tx.update('apiKeys', older);
    });
    const listed = await h.api('GET', '/api-keys');
    expect(listed.status).toBe(200);
    expect(listed.body.data[0].createdBy).toBeNull();
  });
});
