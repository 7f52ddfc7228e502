/**
 * The names of what audit events are about: a license by its customer and product, a machine by
 * the name it was activated with (while it is activated), a product by its name. Events carry
 * only IDs: each license is looked up (a few at a time, once a minute at most), the products once
 * per list.
 */
import { ApiError } from '../ui/api.js';
import type { AuditEventView } from '../ui/types.js';
import { api } from './api.js';
import { customerName } from './format.js';

/** A license as an event names it. */
export interface LicenseName {
  customer: string;
  product: string;
}

/** What a list of events is about, by ID; an ID missing from a map is shown as it is, or not at all. */
export interface EventNames {
  licenses: ReadonlyMap<string, LicenseName>;
  products: ReadonlyMap<string, string>;
  /** Names of the machines activated now (a freed machine is no longer known). */
  machines: ReadonlyMap<string, string>;
  /** Names of the API keys that did something: the account's keys, and revoked ones named by their own events. */
  apiKeys: ReadonlyMap<string, string>;
}

const MAX_PARALLEL = 4;
let running = 0;
const waiting: (() => void)[] = [];

/** Runs `work` when fewer than {@link MAX_PARALLEL} lookups are running. */
async function limited<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_PARALLEL) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/** A license's customer (by name), product ID and named machines. */
export interface LicenseOwner {
  customer: string;
  productId: string;
  machines: readonly (readonly [string, string])[];
}

/** A lookup is reused for a minute (a page and the next one), then made again: machines come and go. */
const REUSE_MS = 60_000;
const licenseLookups = new Map<string, { at: number; found: Promise<LicenseOwner | null> }>();

/** The customer's name, product ID and machines of a license, or null when there is no such license (a failed lookup is not kept). */
export function lookUpLicense(id: string): Promise<LicenseOwner | null> {
  const kept = licenseLookups.get(id);
  if (kept && Date.now() - kept.at < REUSE_MS) return kept.found;
  const found = limited(() => api.licenses.get(id)).then(
    (license) => ({
      customer: customerName(license.customer),
      productId: license.product,
      machines: license.activations.flatMap((a) => (a.name ? [[a.id, a.name] as const] : [])),
    }),
    (error: unknown) => {
      licenseLookups.delete(id);
      if (ApiError.is(error) && error.status === 404) return null;
      throw error;
    },
  );
  licenseLookups.set(id, { at: Date.now(), found });
  return found;
}

/** The product an event is about without being about a license (signing keys). */
export function productOf(event: AuditEventView): string | null {
  const product = event.data?.product;
  return typeof product === 'string' ? product : null;
}

/** Looks up the names of everything `events` are about; an ID whose lookup fails keeps its ID. */
export async function eventNames(events: readonly AuditEventView[]): Promise<EventNames> {
  const licenseIds = [...new Set(events.map((e) => e.license).filter((id): id is string => id !== null))];
  const byApiKey = events.some((e) => e.actor?.kind === 'api_key');
  const [products, licenses, keys] = await Promise.all([
    events.length === 0 ? Promise.resolve([]) : api.products.all().catch(() => []),
    Promise.all(licenseIds.map((id) => lookUpLicense(id).catch(() => null))),
    byApiKey ? api.apiKeys.list().then((page) => page.data, () => []) : Promise.resolve([]),
  ]);
  const productNames = new Map(products.map((p) => [p.id, p.name]));
  const licenseNames = new Map<string, LicenseName>();
  const machines = new Map<string, string>();
  licenseIds.forEach((id, i) => {
    const found = licenses[i];
    if (!found) return;
    licenseNames.set(id, { customer: found.customer, product: productNames.get(found.productId) ?? found.productId });
    for (const [activation, name] of found.machines) machines.set(activation, name);
  });
  return { licenses: licenseNames, products: productNames, machines, apiKeys: byApiKey ? apiKeyNames(events, keys) : new Map() };
}

/** API keys by ID: a revoked key is no longer listed, but its own created or revoked event names it. */
function apiKeyNames(events: readonly AuditEventView[], listed: readonly { id: string; name: string }[]): Map<string, string> {
  const names = new Map(listed.map((k) => [k.id, k.name]));
  for (const e of events) {
    if ((e.type === 'api_key.created' || e.type === 'api_key.revoked') && typeof e.data?.apiKey === 'string' && typeof e.data.name === 'string') {
      if (!names.has(e.data.apiKey)) names.set(e.data.apiKey, e.data.name);
    }
  }
  return names;
}
