import type { ComponentChildren } from 'preact';
import { Section } from '../../ui/components/layout.js';
import { href } from '../../ui/router.js';
import type { ProductView } from '../../ui/types.js';
import { api } from '../api.js';

/** How far a new account is: its first product, the first product with a plan, and whether any license exists. */
export interface StartProgress {
  product: ProductView | null;
  productWithPlan: ProductView | null;
  hasLicense: boolean;
}

/** Reads the account's progress; an account with a license is past its first steps (one request). */
export async function loadStartProgress(): Promise<StartProgress> {
  const licenses = await api.licenses.list({});
  if (licenses.data.length > 0) return { product: null, productWithPlan: null, hasLicense: true };
  const products = await api.products.all();
  const plans = await Promise.all(products.map((p) => api.plans.list(p.id)));
  return { product: products[0] ?? null, productWithPlan: products.find((_, i) => plans[i]!.data.length > 0) ?? null, hasLicense: false };
}

function Step({ done, children }: { done: boolean; children: ComponentChildren }) {
  return (
    <li class={done ? 'step step-done' : 'step'}>
      {done ? <span class="badge badge-good">Done</span> : null} {children}
    </li>
  );
}

/**
 * The first steps of a new account, on its overview until it has a license: a product, a plan, a
 * license (by hand or from a payment provider), the next one as the page's main button.
 */
export function FirstSteps({ progress }: { progress: StartProgress }) {
  const { product, productWithPlan } = progress;
  const next = !product
    ? { href: href('products'), label: 'Create your first product' }
    : !productWithPlan
      ? { href: href('products', product.id), label: `Add a plan to ${product.name}` }
      : { href: href('licenses', 'new'), label: 'Create your first license' };
  return (
    <Section title="Get started">
      <p>Three steps from an empty account to a license your application accepts:</p>
      <ol class="steps">
        <Step done={product !== null}>
          <strong>A product</strong>: the application you sell. It gets its own signing key and license-key prefix.
        </Step>
        <Step done={productWithPlan !== null}>
          <strong>A plan</strong> of that product: what a license gives (machines per seat, entitlements, versions covered).
        </Step>
        <Step done={false}>
          <strong>A license</strong>: create one by hand for a customer, or <a href={href('integrations')}>connect your payment provider</a> so every purchase
          creates one.
        </Step>
      </ol>
      <div class="actions">
        <a class="btn btn-primary" href={next.href}>
          {next.label}
        </a>
      </div>
    </Section>
  );
}
