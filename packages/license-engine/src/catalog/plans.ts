import { LicensingError } from '../_internal/errors.js';
import type { PlanKind, PlanRecord } from '../_internal/records.js';
import type { StoreTx } from '../_internal/store.js';
import type { EngineContext } from '../_internal/context.js';
import { now, owned, transact } from '../_internal/context.js';
import { asObject, invalid, requireInt, requireString } from '../_internal/validate.js';
import type { ListView, PlanView } from '../_internal/views.js';
import { planView } from '../_internal/record-views.js';
import { openCursor, sealCursor } from '../_internal/cursor.js';
import { parseNewPlanSeats, parsePlanSeatsPatch } from '../_internal/plan-seats.js';
import type { PlanSeats } from '../_internal/plan-seats.js';

const CODE = /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/;
const KINDS: readonly PlanKind[] = ['subscription', 'perpetual', 'trial'];

/**
 * Plan defaults of the spec; non-trial plans get trialDays 0 (docs/decisions.md).
 *
 * @example
 * ```ts
 * PLAN_DEFAULTS.trialDays; // 14
 * ```
 */
export const PLAN_DEFAULTS = { maxActivations: 1, trialDays: 14 } as const;

export interface CreatePlanInput {
  code: string;
  name?: string;
  kind: PlanKind;
  maxActivations?: number;
  entitlements?: string[];
  maxMajor?: number | null;
  trialDays?: number;
  offlineDays?: number | null;
  /** `machine` (default) or `floating`; immutable like `kind`. */
  seatMode?: PlanSeats['seatMode'];
  /** Floating plans only: 120..86400, default 900. */
  leaseSeconds?: number;
  /** Floating plans only: 0..365, default 0 (no borrowing). */
  maxBorrowDays?: number;
  /** Floating plans only: 0..100000 or null (default: every seat may be borrowed). */
  maxBorrowedSeats?: number | null;
}

export type UpdatePlanInput = Partial<Omit<CreatePlanInput, 'code' | 'kind' | 'seatMode'>>;

function parseEntitlements(value: unknown): string[] {
  if (!Array.isArray(value) || value.length > 100) invalid('entitlements must be an array of at most 100 strings');
  const out: string[] = [];
  for (const item of value) {
    const text = requireString(item, 'entitlements[]', 100);
    if (!out.includes(text)) out.push(text);
  }
  return out;
}

/** Validates the mutable plan fields present in `body`. */
function parseTerms(body: Record<string, unknown>): Partial<PlanRecord> {
  const terms: Partial<PlanRecord> = {};
  if (body.name !== undefined) terms.name = requireString(body.name, 'name', 200);
  if (body.maxActivations !== undefined) terms.maxActivations = requireInt(body.maxActivations, 'maxActivations', 1, 100_000);
  if (body.entitlements !== undefined) terms.entitlements = parseEntitlements(body.entitlements);
  if (body.maxMajor !== undefined) terms.maxMajor = body.maxMajor === null ? null : requireInt(body.maxMajor, 'maxMajor', 0, 1_000_000);
  if (body.trialDays !== undefined) terms.trialDays = requireInt(body.trialDays, 'trialDays', 1, 3650);
  if (body.offlineDays !== undefined) terms.offlineDays = body.offlineDays === null ? null : requireInt(body.offlineDays, 'offlineDays', 1, 365);
  return terms;
}

/** `POST /products/{id}/plans`: `conflict` on a duplicate code. */
export async function createPlan(ctx: EngineContext, accountId: string, productId: string, input: CreatePlanInput): Promise<PlanView> {
  const body = asObject(input);
  if (typeof body.code !== 'string' || body.code.length > 64 || !CODE.test(body.code)) {
    invalid('code must be a lowercase slug (letters, digits, single hyphens or underscores between them), at most 64 characters');
  }
  const code = body.code;
  if (!KINDS.includes(body.kind as PlanKind)) invalid('kind must be subscription, perpetual or trial');
  const kind = body.kind as PlanKind;
  const terms = parseTerms(body);
  const seats = parseNewPlanSeats(body);
  return transact(ctx, async (tx) => {
    await owned(tx, 'products', accountId, productId, 'product');
    if (await tx.findOne('plans', { productId, code })) throw new LicensingError('conflict', `plan code ${code} already exists on this product`);
    const at = now(ctx);
    const plan: PlanRecord = {
      id: ctx.ids.next('pln'),
      accountId,
      productId,
      code,
      name: terms.name ?? code,
      kind,
      maxActivations: terms.maxActivations ?? PLAN_DEFAULTS.maxActivations,
      entitlements: terms.entitlements ?? [],
      maxMajor: terms.maxMajor ?? null,
      trialDays: terms.trialDays ?? (kind === 'trial' ? PLAN_DEFAULTS.trialDays : 0),
      offlineDays: terms.offlineDays ?? null,
      ...seats,
      createdAt: at,
      updatedAt: at,
    };
    await tx.insert('plans', plan);
    return planView(plan);
  });
}

export async function listPlans(
  ctx: EngineContext,
  accountId: string,
  productId: string,
  options: { cursor?: string | null } = {},
): Promise<ListView<PlanView>> {
  const scope = ['plans', accountId, productId] as const;
  const cursor = openCursor(ctx, scope, options.cursor);
  return transact(ctx, async (tx) => {
    await owned(tx, 'products', accountId, productId, 'product');
    const page = await tx.page('plans', { where: { productId }, cursor, limit: 50, order: 'desc' });
    return { data: page.data.map(planView), nextCursor: sealCursor(ctx, scope, page.nextCursor) };
  });
}

export async function getPlan(ctx: EngineContext, accountId: string, planId: string): Promise<PlanView> {
  return transact(ctx, async (tx) => planView(await owned(tx, 'plans', accountId, planId, 'plan')));
}

/**
 * `PATCH /plans/{id}`: code, kind and seatMode cannot change, nor lease fields be set on a machine
 * plan (`invalid_request`); null offlineDays clears the override.
 */
export async function updatePlan(ctx: EngineContext, accountId: string, planId: string, patch: UpdatePlanInput): Promise<PlanView> {
  const body = asObject(patch);
  if (body.code !== undefined || body.kind !== undefined) invalid('code and kind of a plan cannot change');
  const terms = parseTerms(body);
  return transact(ctx, async (tx) => {
    const plan = await owned(tx, 'plans', accountId, planId, 'plan', true);
    const next: PlanRecord = { ...plan, ...terms, ...parsePlanSeatsPatch(body, plan), updatedAt: now(ctx) };
    await tx.update('plans', next);
    return planView(next);
  });
}

/** A product's plan by ID or code, or null. */
export async function findPlan(tx: StoreTx, productId: string, ref: { id?: string; code?: string }): Promise<PlanRecord | null> {
  if (ref.id !== undefined) {
    const plan = await tx.get('plans', ref.id);
    return plan && plan.productId === productId ? plan : null;
  }
  return ref.code === undefined ? null : tx.findOne('plans', { productId, code: ref.code });
}
