import type { Locale } from '@svc-licensing/license-engine';
import { escapeHtml } from './_internal/escape-html.js';

/** What the license-key e-mail says. Every value is plain text; the HTML body escapes it. */
export interface KeyEmailFields {
  locale: Locale;
  /** May be empty: the greeting then has no name. */
  customerName: string;
  productName: string;
  /** The plan line is left out when null. */
  planName: string | null;
  key: string;
  /** Signs the e-mail (the vendor's sender name). */
  senderName: string;
  /** The customer portal's address, when the vendor has one: the e-mail says where to manage machines. */
  portalUrl?: string | null;
}

/** A rendered e-mail: subject and both bodies. */
export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

interface Wording {
  subject(product: string): string;
  greeting(name: string): string;
  intro(product: string): string;
  plan(planName: string): string;
  howTo(product: string): string;
  keepSafe: string;
  portal: string;
}

const wordings: Record<Locale, Wording> = {
  en: {
    subject: (product) => `Your license key for ${product}`,
    greeting: (name) => (name ? `Hello ${name},` : 'Hello,'),
    intro: (product) => `Thank you for choosing ${product}. Here is your license key:`,
    plan: (planName) => `Plan: ${planName}`,
    howTo: (product) => `To activate ${product}, open the application and enter this key when asked.`,
    keepSafe: 'Keep this e-mail: you will need the key again to activate another machine.',
    portal: 'See your licenses, free a machine or activate one without internet in your license portal:',
  },
  fr: {
    subject: (product) => `Votre clé de licence pour ${product}`,
    greeting: (name) => (name ? `Bonjour ${name},` : 'Bonjour,'),
    intro: (product) => `Merci d’avoir choisi ${product}. Voici votre clé de licence :`,
    plan: (planName) => `Formule : ${planName}`,
    howTo: (product) => `Pour activer ${product}, ouvrez l’application et saisissez cette clé lorsqu’elle vous est demandée.`,
    keepSafe: 'Conservez cet e-mail : la clé vous sera de nouveau nécessaire pour activer une autre machine.',
    portal: 'Consultez vos licences, libérez une machine ou activez-en une sans internet dans votre portail de licences :',
  },
};

/**
 * Renders the license-key e-mail in the license's language (English or French), as plain text
 * and HTML. The subject names the product; the e-mail is signed with the sender name.
 *
 * @example
 * ```ts
 * const email = renderKeyEmail({
 *   locale: 'fr', customerName: 'Ada', productName: 'PhotoTool', planName: 'Pro',
 *   key: 'PT-ABCDE-FGHJK-MNPQR-STVWX', senderName: 'Acme',
 * });
 * email.subject; // 'Votre clé de licence pour PhotoTool'
 * ```
 */
export function renderKeyEmail(fields: KeyEmailFields): RenderedEmail {
  const w = wordings[fields.locale];
  const text = [
    w.greeting(fields.customerName),
    '',
    w.intro(fields.productName),
    '',
    `    ${fields.key}`,
    '',
    ...(fields.planName ? [w.plan(fields.planName), ''] : []),
    w.howTo(fields.productName),
    w.keepSafe,
    '',
    ...(fields.portalUrl ? [w.portal, fields.portalUrl, ''] : []),
    '-- ',
    fields.senderName,
    '',
  ].join('\n');
  const e = escapeHtml;
  const html = [
    '<!doctype html>',
    `<html lang="${fields.locale}">`,
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"></head>',
    '<body style="font-family: sans-serif; line-height: 1.5; color: #222;">',
    `<p>${e(w.greeting(fields.customerName))}</p>`,
    `<p>${e(w.intro(fields.productName))}</p>`,
    `<p style="font-family: monospace; font-size: 1.25em; padding: 0.75em 1em; background: #f3f3f3; display: inline-block;">${e(fields.key)}</p>`,
    ...(fields.planName ? [`<p>${e(w.plan(fields.planName))}</p>`] : []),
    `<p>${e(w.howTo(fields.productName))}<br>${e(w.keepSafe)}</p>`,
    ...(fields.portalUrl ? [`<p>${e(w.portal)}<br><a href="${e(fields.portalUrl)}">${e(fields.portalUrl)}</a></p>`] : []),
    `<p>${e(fields.senderName)}</p>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
  return { subject: w.subject(fields.productName), text, html };
}
