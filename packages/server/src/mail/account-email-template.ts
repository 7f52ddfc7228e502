import type { Locale } from '@svc-licensing/license-engine';
import { escapeHtml } from './_internal/escape-html.js';
import type { RenderedEmail } from './key-email-template.js';

/**
 * Which account e-mail: a sign-in link, an invitation to join as a member, the reopen link after
 * closure, a portal sign-in link, the link confirming a new owner address (to that address), or
 * the notice that the owner address changed (to the old address; `url` is the dashboard's).
 */
export type AccountEmailKind = 'sign_in' | 'invite' | 'reopen' | 'portal_sign_in' | 'owner_email' | 'owner_email_changed';

/** What an account e-mail says. Every value is plain text; the HTML body escapes it. */
export interface AccountEmailFields {
  kind: AccountEmailKind;
  locale: Locale;
  accountName: string;
  /** The one-time link. */
  url: string;
  /** When the link stops working, `YYYY-MM-DDThh:mm:ssZ`. */
  expiresAt: string;
  /** `owner_email_changed`: the owner's new address. */
  newAddress?: string;
}

interface Wording {
  subject(account: string): string;
  intro(account: string, newAddress: string): string;
  button: string;
  validity(when: string): string;
  ignore: string;
}

const when = (locale: Locale, iso: string): string =>
  new Intl.DateTimeFormat(locale === 'fr' ? 'fr-FR' : 'en-GB', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(new Date(iso)) + ' UTC';

const wordings: Record<AccountEmailKind, Record<Locale, Wording>> = {
  owner_email: {
    en: {
      subject: (a) => `Confirm the new owner address of ${a}`,
      intro: (a) => `The owner of ${a} asked to make this address the owner address of its licensing account. Open this link to confirm it:`,
      button: 'Confirm the address',
      validity: (w) => `The link works once, until ${w}; the address changes only when it is used.`,
      ignore: 'If you did not expect this, ignore this e-mail: nothing changes without the link.',
    },
    fr: {
      subject: (a) => `Confirmez la nouvelle adresse du propriétaire de ${a}`,
      intro: (a) => `Le propriétaire de ${a} a demandé que cette adresse devienne celle du propriétaire de son compte de licences. Ouvrez ce lien pour la confirmer :`,
      button: 'Confirmer l’adresse',
      validity: (w) => `Le lien ne sert qu’une fois, jusqu’au ${w} ; l’adresse ne change que s’il est utilisé.`,
      ignore: 'Si vous n’attendiez rien, ignorez cet e-mail : rien ne change sans le lien.',
    },
  },
  owner_email_changed: {
    en: {
      subject: (a) => `The owner address of ${a} changed`,
      intro: (a, n) => `The owner address of the licensing account ${a} is now ${n}: sign-in links and account e-mails go there from now on, no longer to this address.`,
      button: 'Open the dashboard',
      validity: () => 'The change was confirmed with a link sent to the new address.',
      ignore: 'If you did not make this change, contact the operator of the licensing service at once.',
    },
    fr: {
      subject: (a) => `L’adresse du propriétaire de ${a} a changé`,
      intro: (a, n) => `L’adresse du propriétaire du compte de licences ${a} est désormais ${n} : les liens de connexion et les e-mails du compte y sont envoyés, et non plus à cette adresse.`,
      button: 'Ouvrir le tableau de bord',
      validity: () => 'Le changement a été confirmé par un lien envoyé à la nouvelle adresse.',
      ignore: 'Si vous n’êtes pas à l’origine de ce changement, contactez sans attendre l’opérateur du service de licences.',
    },
  },
  sign_in: {
    en: {
      subject: (a) => `Sign in to ${a}`,
      intro: (a) => `Someone asked to sign in to the licensing dashboard of ${a} with this address. Open this link to sign in:`,
      button: 'Sign in',
      validity: (w) => `The link works once, until ${w}.`,
      ignore: 'If you did not ask for it, ignore this e-mail: nothing happens without the link.',
    },
    fr: {
      subject: (a) => `Connexion à ${a}`,
      intro: (a) => `Une connexion au tableau de bord de licences de ${a} a été demandée avec cette adresse. Ouvrez ce lien pour vous connecter :`,
      button: 'Se connecter',
      validity: (w) => `Le lien ne sert qu’une fois, jusqu’au ${w}.`,
      ignore: 'Si vous n’avez rien demandé, ignorez cet e-mail : rien ne se passe sans le lien.',
    },
  },
  portal_sign_in: {
    en: {
      subject: (a) => `Your licenses from ${a}: sign-in link`,
      intro: (a) => `Someone asked to sign in to the license portal of ${a} with this address. Open this link to see your licenses and machines:`,
      button: 'Open my licenses',
      validity: (w) => `The link works once, until ${w}.`,
      ignore: 'If you did not ask for it, ignore this e-mail: nothing happens without the link.',
    },
    fr: {
      subject: (a) => `Vos licences ${a} : lien de connexion`,
      intro: (a) => `Une connexion au portail de licences de ${a} a été demandée avec cette adresse. Ouvrez ce lien pour voir vos licences et vos machines :`,
      button: 'Ouvrir mes licences',
      validity: (w) => `Le lien ne sert qu’une fois, jusqu’au ${w}.`,
      ignore: 'Si vous n’avez rien demandé, ignorez cet e-mail : rien ne se passe sans le lien.',
    },
  },
  invite: {
    en: {
      subject: (a) => `You are invited to ${a}`,
      intro: (a) => `The owner of ${a} invited you to its licensing dashboard as a member. Open this link to sign in:`,
      button: 'Sign in',
      validity: (w) => `The link works once, until ${w}; afterwards, ask for a new one on the sign-in page.`,
      ignore: 'If you do not expect this invitation, ignore this e-mail.',
    },
    fr: {
      subject: (a) => `Invitation à rejoindre ${a}`,
      intro: (a) => `Le propriétaire de ${a} vous invite comme membre sur son tableau de bord de licences. Ouvrez ce lien pour vous connecter :`,
      button: 'Se connecter',
      validity: (w) => `Le lien ne sert qu’une fois, jusqu’au ${w} ; ensuite, demandez-en un nouveau sur la page de connexion.`,
      ignore: 'Si vous n’attendiez pas cette invitation, ignorez cet e-mail.',
    },
  },
  reopen: {
    en: {
      subject: (a) => `${a} is closed: reopen it within 30 days`,
      intro: (a) =>
        `The account ${a} was closed: its API keys and sessions are revoked, new activations are refused, and its data is deleted after 30 days. To reopen it, open this link:`,
      button: 'Reopen the account',
      validity: (w) => `The link works once, until ${w}. After that date, all the account's data is deleted.`,
      ignore: 'If you closed the account on purpose, you need not do anything.',
    },
    fr: {
      subject: (a) => `${a} est fermé : rouvrez-le sous 30 jours`,
      intro: (a) =>
        `Le compte ${a} a été fermé : ses clés d’API et ses sessions sont révoquées, les nouvelles activations refusées, et ses données seront supprimées dans 30 jours. Pour le rouvrir, ouvrez ce lien :`,
      button: 'Rouvrir le compte',
      validity: (w) => `Le lien ne sert qu’une fois, jusqu’au ${w}. Après cette date, toutes les données du compte sont supprimées.`,
      ignore: 'Si vous avez fermé le compte volontairement, vous n’avez rien à faire.',
    },
  },
};

/**
 * Renders an account e-mail (sign-in link, member invitation, reopen link) in English or French,
 * as plain text and HTML.
 *
 * @example
 * ```ts
 * const email = renderAccountEmail({
 *   kind: 'sign_in', locale: 'en', accountName: 'Acme', url: 'https://licensing.example.com/sign-in?token=...',
 *   expiresAt: '2030-01-01T12:15:00Z',
 * });
 * email.subject; // 'Sign in to Acme'
 * ```
 */
export function renderAccountEmail(fields: AccountEmailFields): RenderedEmail {
  const w = wordings[fields.kind][fields.locale];
  const validity = w.validity(when(fields.locale, fields.expiresAt));
  const intro = w.intro(fields.accountName, fields.newAddress ?? '');
  const text = [intro, '', fields.url, '', validity, w.ignore, ''].join('\n');
  const e = escapeHtml;
  const html = [
    '<!doctype html>',
    `<html lang="${fields.locale}">`,
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"></head>',
    '<body style="font-family: sans-serif; line-height: 1.5; color: #222;">',
    `<p>${e(intro)}</p>`,
    `<p><a href="${e(fields.url)}" style="display: inline-block; padding: 0.6em 1.2em; background: #1d4ed8; color: #fff; text-decoration: none; border-radius: 4px;">${e(w.button)}</a></p>`,
    `<p style="word-break: break-all; font-size: 0.9em;">${e(fields.url)}</p>`,
    `<p>${e(validity)}<br>${e(w.ignore)}</p>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
  return { subject: w.subject(fields.accountName), text, html };
}
