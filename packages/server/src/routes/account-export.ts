import type { AccountExport } from '@svc-licensing/license-engine';
import { AccountExportView } from '../http/export-views.js';
import { defineRoute, type RouteDef } from '../http/route.js';

/**
 * The export as an HTTP body: one page of the document per read, pulled only as fast as the
 * client reads it, so memory stays flat whatever the size of the account.
 */
export function exportResponse(exported: AccountExport, accountId: string): Response {
  const iterator = exported.chunks[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await iterator.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      },
      async cancel() {
        await iterator.return?.(undefined);
      },
    },
    { highWaterMark: 1 },
  );
  const day = exported.exportedAt.slice(0, 10);
  return new Response(body, {
    status: 200,
    headers: {
      'content-type': 'application/json;charset=UTF-8',
      'content-disposition': `attachment; filename="svc-account-export-${accountId}-${day}.json"`,
      'cache-control': 'no-store',
    },
  });
}

/** `POST /v1/account/export` (owner): the whole account as one `svc-account-export-v1` document, streamed. */
export const accountExportRoutes: RouteDef[] = [
  defineRoute({
    method: 'POST', path: '/v1/account/export', api: 'vendor', tag: 'Account', access: 'owner',
    summary:
      'Export everything the account holds as one svc-account-export-v1 JSON document, streamed (account owner); audited as account.exported',
    response: AccountExportView, errors: ['not_found'],
    handler: async ({ engine, accountId }) => exportResponse(await engine.exportAccount(accountId), accountId),
  }),
];
