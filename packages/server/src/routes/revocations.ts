import * as v from 'valibot';
import { defineRoute, type RouteDef } from '../http/route.js';
import { CLIENT_CORS_HEADERS } from '../http/cors.js';
import { ifNoneMatchMatches } from '../http/if-none-match.js';

/** The list's `ETag`: one per `seq`, since a seq's text never changes (docs/rvl1.md, "The route"). */
export const revocationListEtag = (seq: number): string => `"rvl1-${seq}"`;

/** What the list answer documents: the text, the ETag to revalidate with, and a CDN's cache rule. */
const RevocationListText = v.pipe(
  v.string(),
  v.regex(/^RVL1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\n$/),
  v.description('The product\'s current RVL1 list (docs/rvl1.md) and a newline'),
);

/**
 * `GET /v1/products/{id}/revocations`: the product's current signed revocation list, as text. No
 * authentication and CORS open like the client API (applications fetch it, a page on another origin
 * reads its ETag); cacheable by a CDN, which revalidates with `If-None-Match` (`304`).
 */
export const revocationRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET', path: '/v1/products/{id}/revocations', api: 'client', tag: 'Client API',
    summary: 'The product\'s current signed revocation list (RVL1), for applications to check certificates offline; ETag and If-None-Match',
    response: RevocationListText, text: { notModified: true }, errors: ['unknown_product'],
    handler: async ({ engine, params, event, setHeader }) => {
      const list = await engine.getRevocationList(params.id!);
      const etag = revocationListEtag(list.seq);
      setHeader('etag', etag);
      // A shared cache may keep it, and asks again (If-None-Match) before each use: a new seq shows at once.
      setHeader('cache-control', 'public, no-cache');
      setHeader('access-control-expose-headers', `${CLIENT_CORS_HEADERS['access-control-expose-headers']}, ETag`);
      // A CDN or browser cache may send several ETags it holds, or `*` (RFC 9110, 13.1.2).
      if (ifNoneMatchMatches(event.req.headers.get('if-none-match'), etag)) return new Response(null, { status: 304 });
      return new Response(`${list.text}\n`, { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' } });
    },
  }),
];
