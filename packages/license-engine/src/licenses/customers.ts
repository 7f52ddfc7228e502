import type { CustomerRecord } from '../_internal/records.js';
import type { StoreTx } from '../_internal/store.js';
import type { EngineContext } from '../_internal/context.js';
import { now, owned, transact } from '../_internal/context.js';
import { lockOrInsert } from '../_internal/claim.js';
import { licenseViews } from '../_internal/license-load.js';
import { requireString } from '../_internal/validate.js';
import type { CustomerDetailView, CustomerView, ListView } from '../_internal/views.js';
import { customerView } from '../_internal/record-views.js';
import { openCursor, sealCursor } from '../_internal/cursor.js';

/**
 * The account's customer with this e-mail, created when missing (name defaults to the e-mail).
 * A given name replaces an existing customer's name, also on their licenses' copies.
 */
export async function upsertCustomer(
  ctx: EngineContext,
  tx: StoreTx,
  accountId: string,
  email: string,
  name: string | null,
  read?: CustomerRecord | null,
): Promise<CustomerRecord> {
  // Unchanged: read without a lock (customers are never deleted; nothing here is written). `read`:
  // the caller's own read of it in this unit, asked for together with its other reads.
  const found = read !== undefined ? read : await tx.findOne('customers', { accountId, email });
  if (found && (name === null || name === found.name)) return found;
  const at = now(ctx);
  const customer: CustomerRecord = { id: ctx.ids.next('cus'), accountId, email, name: name ?? email, createdAt: at, updatedAt: at };
  if (read === null) {
    // The caller's read in this unit found none: held for the commit, where a concurrent insert of
    // the same address clashes and the unit runs again (and finds it).
    await tx.insert('customers', customer, { defer: true });
    return customer;
  }
  const existing = await lockOrInsert(
    (lock) => tx.findOne('customers', { accountId, email }, lock),
    () => tx.insert('customers', customer),
    { usuallyMissing: found === null }, // just read: not there (a concurrent insert still clashes)
  );
  if (!existing) return customer;
  if (name === null || name === existing.name) return existing;
  const renamed = { ...existing, name, updatedAt: at };
  await tx.update('customers', renamed);
  for (const license of await tx.findMany('licenses', { customerId: existing.id })) {
    await tx.update('licenses', { ...license, customerName: name });
  }
  return renamed;
}

/**
 * A customer's address changed at the payment provider: the account's customer at `from` moves to
 * `to` (a given name replaces theirs), and its licenses' copies follow. When another customer already
 * has `to`, the licenses move to that customer instead and the old record keeps none. Null when no
 * customer has `from`.
 */
export async function moveCustomer(
  ctx: EngineContext,
  tx: StoreTx,
  accountId: string,
  from: string,
  to: string,
  name: string | null,
): Promise<CustomerRecord | null> {
  const old = await tx.findOne('customers', { accountId, email: from }, { lock: true });
  if (!old) return null;
  const at = now(ctx);
  // Not a locking read: a concurrent insert of `to` clashes on the unique address and the unit reruns.
  const taken = await tx.findOne('customers', { accountId, email: to });
  let customer: CustomerRecord;
  if (taken === null) {
    customer = { ...old, email: to, name: name ?? old.name, updatedAt: at };
    await tx.update('customers', customer);
  } else {
    customer = name === null || name === taken.name ? taken : { ...taken, name, updatedAt: at };
    if (customer !== taken) {
      await tx.update('customers', customer);
      for (const license of await tx.findMany('licenses', { customerId: taken.id })) await tx.update('licenses', { ...license, customerName: customer.name });
    }
  }
  for (const license of await tx.findMany('licenses', { customerId: old.id })) {
    await tx.update('licenses', { ...license, customerId: customer.id, customerEmail: to, customerName: customer.name });
  }
  return customer;
}

/** `GET /customers`: newest first; `email` exact, `q` part of e-mail or name. */
export async function listCustomers(
  ctx: EngineContext,
  accountId: string,
  options: { email?: string | null; q?: string | null; cursor?: string | null } = {},
): Promise<ListView<CustomerView>> {
  const where: { accountId: string; email?: string } = { accountId };
  if (options.email !== undefined && options.email !== null && options.email !== '') where.email = String(options.email).trim().toLowerCase();
  const q = options.q === undefined || options.q === null || options.q === '' ? null : requireString(options.q, 'q', 200);
  const scope = ['customers', accountId, where.email, q] as const;
  const cursor = openCursor(ctx, scope, options.cursor);
  return transact(ctx, async (tx) => {
    const page = await tx.page('customers', {
      where,
      ...(q === null ? {} : { search: { text: q, fields: ['email', 'name'] as const } }),
      cursor,
      limit: 50,
      order: 'desc',
    });
    const data: CustomerView[] = [];
    for (const c of page.data) data.push(customerView(c, await tx.count('licenses', { customerId: c.id })));
    return { data, nextCursor: sealCursor(ctx, scope, page.nextCursor) };
  });
}

/** `GET /customers/{id}`: the customer with their licenses, newest first. */
export async function getCustomer(ctx: EngineContext, accountId: string, id: string): Promise<CustomerDetailView> {
  return transact(ctx, async (tx) => {
    const customer = await owned(tx, 'customers', accountId, id, 'customer');
    const licenses = (await tx.findMany('licenses', { customerId: customer.id })).reverse();
    const view = licenseViews(tx, ctx.clock.now());
    const items = [];
    for (const l of licenses) items.push(await view(l));
    return { ...customerView(customer, licenses.length), licenses: items };
  });
}
