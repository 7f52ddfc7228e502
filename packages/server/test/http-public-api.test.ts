import { expect, it } from 'vitest';
import * as server from '../src/index.js';

it('exports exactly the public API of the HTTP layer (a rename or removal is a visible decision)', () => {
  expect(Object.keys(server).sort()).toEqual([
    'ApiError',
    'DEFAULT_BODY_LIMIT',
    'DEFAULT_RATE_LIMITS',
    'createApp',
    'createJsonLogger',
    'createMemoryRateLimitStore',
    'createOpenApiDocument',
    'defineRoute',
    'listen',
    'statusForCode',
  ]);
  expect(server.DEFAULT_RATE_LIMITS).toEqual({ vendorPerAccount: 5000, clientPerKeyAndIp: 30, clientPerIp: 600, windowMs: 3_600_000 });
  expect(server.DEFAULT_BODY_LIMIT).toBe(65_536);
  expect(server.ApiError.is(new server.ApiError('owner_session_required', 'x'))).toBe(true);
  expect(server.statusForCode('owner_session_required')).toBe(400);
});
