import { createHash } from 'node:crypto';
import { escapeHtml } from '../mail/_internal/escape-html.js';

const STYLE =
  'body{font-family:system-ui,sans-serif;line-height:1.5;color:#1f2328;background:#f6f8fa;margin:0;padding:1rem}' +
  'main{max-width:28rem;margin:3rem auto;background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:1.5rem}' +
  'h1{font-size:1.4rem;margin:0 0 1rem}' +
  'button{font:inherit;font-size:1.05rem;padding:.6rem 1.4rem;border:0;border-radius:6px;background:#1d4ed8;color:#fff;cursor:pointer}' +
  'button:focus-visible,a:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}a{color:#1d4ed8}';

/**
 * Headers of every link page: a strict CSP (nothing but the page's own hashed style, forms only to
 * this origin, no framing), no caching, and `Referrer-Policy: strict-origin`: the URL holds the
 * token, so a Referer never carries more than the origin, yet the button's form POST carries the
 * page's real `Origin`. With `no-referrer` a browser sends `Origin: null` on it, which the
 * same-origin check refuses; over plain http on any host but localhost (no `Sec-Fetch-Site`
 * either), nobody could sign in.
 */
export const PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  'cache-control': 'no-store',
  'referrer-policy': 'strict-origin',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

/** What a link page shows: a title, paragraphs, and optionally a button that posts the form back. */
export interface PageContent {
  title: string;
  paragraphs: string[];
  /** The button's label; the form posts to the page's own URL, the token in a hidden field too. */
  button?: { label: string; token: string };
  /** A link after the paragraphs (e.g. to the dashboard's sign-in page, to ask for a new link). */
  link?: { label: string; href: string };
}

/**
 * A link page as the answer: the rendered page with its headers (`PAGE_HEADERS`).
 *
 * @example
 * return pageResponse({ title: 'This link has expired', paragraphs: ['Ask for a new one.'] }, 410);
 */
export function pageResponse(content: PageContent, status = 200): Response {
  return new Response(renderPage(content), { status, headers: PAGE_HEADERS });
}

/**
 * Renders a small server-side page (no script; works as a plain form POST).
 *
 * @example
 * renderPage({ title: 'Sign in', paragraphs: ['Press the button to sign in.'], button: { label: 'Sign in', token } });
 */
export function renderPage(content: PageContent): string {
  const e = escapeHtml;
  const form = content.button
    ? `<form method="post"><input type="hidden" name="token" value="${e(content.button.token)}"><button type="submit">${e(content.button.label)}</button></form>`
    : '';
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${e(content.title)}</title><style>${STYLE}</style></head>`,
    `<body><main><h1>${e(content.title)}</h1>`,
    ...content.paragraphs.map((p) => `<p>${e(p)}</p>`),
    form,
    content.link ? `<p><a href="${e(content.link.href)}">${e(content.link.label)}</a></p>` : '',
    '</main></body></html>',
    '',
  ].join('\n');
}
