import { expect, it } from 'vitest';
import * as server from '../src/index.js';

it('exports exactly the public API of the server package (a rename or removal is a visible decision)', () => {
  expect(Object.keys(server).sort()).toEqual([
    'ApiError',
    'ConfigError',
    'DEFAULT_BODY_LIMIT',
    'DEFAULT_MAX_RATE_LIMIT_WINDOWS',
    'DEFAULT_RATE_LIMITS',
    'INITIAL_ACCOUNT_PLACEHOLDERS',
    'ProviderAFetchError',
    'SESSION_COOKIE',
    'WEBHOOK_BODY_LIMIT',
    'buildKeyEmailMessage',
    'createApp',
    'createDnsResolver',
    'createEmbeddedStore',
    'createFileMailer',
    'createJsonLogger',
    'createKeyEmailSender',
    'createMailer',
    'createMemoryRateLimitStore',
    'createOpenApiDocument',
    'createProviderAClient',
    'createRedisRateLimitStore',
    'createSmtpMailer',
    'createWebhookRoutes',
    'defineRoute',
    'ensureInitialAccount',
    'listen',
    'migrateDatabase',
    'openEmbeddedStore',
    'openStore',
    'parseMasterKey',
    'renderKeyEmail',
    'resolveMasterKey',
    'settled',
    'statusForCode',
  ]);
  expect(server.DEFAULT_RATE_LIMITS).toEqual({
    vendorPerAccount: 5000, clientPerKeyAndIp: 30, clientPerIp: 600, clientFloatingPerIp: 6000, signInPerEmail: 5, signInPerIp: 30, windowMs: 3_600_000,
  });
  expect(server.SESSION_COOKIE).toBe('svc_session');
  expect(server.DEFAULT_BODY_LIMIT).toBe(65_536);
  expect(server.ApiError.is(new server.ApiError('owner_session_required', 'x'))).toBe(true);
  expect(server.statusForCode('owner_session_required')).toBe(400);
});

it('exports the MySQL store from its own subpath, @svc-licensing/server/mysql, and not from the main entry', async () => {
  const mysql = await import('@svc-licensing/server/mysql');
  expect(Object.keys(mysql).sort()).toEqual(['MySqlStoreError', 'createMySqlRateLimitStore', 'createMySqlStore', 'migrate']);
  expect(Object.keys(server)).not.toContain('createMySqlStore');
});
