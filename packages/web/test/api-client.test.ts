import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createApiClient, path, toQuery } from '../src/ui/api.js';
import { json, startLocalServer, type LocalServer } from './local-server.js';

// The browser apps' API client against a real HTTP server on 127.0.0.1: the requests it sends
// (path under the app's prefix, query, JSON body, headers), the answers it reads, the API's errors
// as ApiError with the API's own message, and the end of a session told to the app.
describe('the API client', () => {
  let server: LocalServer;
  const client = () => createApiClient({ base: new URL(`${server.origin}/prefix/v1/`) });

  beforeAll(async () => {
    server = await startLocalServer((req, res) => {
      const url = new URL(req.url, server.origin);
      if (url.pathname === '/prefix/v1/refused') return json(res, 409, { error: { code: 'conflict', message: 'The license is revoked.' } });
      if (url.pathname === '/prefix/v1/session') return json(res, 401, { error: { code: 'unauthorized', message: 'Sign in first.' } });
      if (url.pathname === '/prefix/v1/gateway') return void res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad Gateway</h1>');
      if (url.pathname === '/prefix/v1/export') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"format":"svc-account-export-v1"}');
      if (url.pathname === '/prefix/v1/empty') return void res.writeHead(204).end();
      json(res, req.method === 'POST' ? 201 : 200, { method: req.method, url: req.url, body: req.body === '' ? null : JSON.parse(req.body) });
    });
  });
  afterAll(() => server.close());

  it('sends a GET under the base path with the query, leaving out empty values, and reads the JSON answer', async () => {
    const answer = await client().get<{ method: string; url: string }>('licenses', { q: 'ada', status: '', product: null, cursor: undefined, seats: 3, all: false });
    expect(answer).toEqual({ method: 'GET', url: '/prefix/v1/licenses?q=ada&seats=3&all=false', body: null });
    const sent = server.received.at(-1)!;
    expect(sent.headers.accept).toBe('application/json');
    expect(sent.headers['content-type']).toBeUndefined();
  });

  it('keeps the prefix for a path written with a leading slash', async () => {
    expect(await client().get('/products')).toMatchObject({ url: '/prefix/v1/products' });
  });

  it('sends a body as JSON with its content type, and none when there is no body', async () => {
    expect(await client().post('licenses', { plan: 'pln_1', seats: 2 })).toEqual({ method: 'POST', url: '/prefix/v1/licenses', body: { plan: 'pln_1', seats: 2 } });
    expect(server.received.at(-1)!.headers['content-type']).toBe('application/json');
    expect(await client().patch('account', { replyTo: '' })).toEqual({ method: 'PATCH', url: '/prefix/v1/account', body: { replyTo: '' } });
    await client().post('licenses/lic_1/suspend');
    expect(server.received.at(-1)).toMatchObject({ method: 'POST', body: '' });
    expect(server.received.at(-1)!.headers['content-type']).toBeUndefined();
    expect(await client().del('api-keys/key_1')).toMatchObject({ method: 'DELETE', url: '/prefix/v1/api-keys/key_1' });
  });

  it('answers null for an empty body', async () => {
    expect(await client().del('empty')).toBeNull();
  });

  it("turns the API's error into an ApiError with its status, code and message", async () => {
    const error = await client().post('refused').catch((e: unknown) => e);
    expect(ApiError.is(error)).toBe(true);
    expect(error).toMatchObject({ status: 409, code: 'conflict', message: 'The license is revoked.' });
    expect(ApiError.is(new Error('conflict'))).toBe(false);
  });

  it('says which status the server answered when the answer is not the API error', async () => {
    await expect(client().get('gateway')).rejects.toMatchObject({ status: 502, code: 'http_error', message: 'The server answered 502 Bad Gateway.' });
  });

  it('says the server cannot be reached when nothing listens', async () => {
    const gone = await startLocalServer((_req, res) => res.end());
    await gone.close();
    const offline = createApiClient({ base: new URL(`${gone.origin}/v1/`) });
    await expect(offline.get('products')).rejects.toMatchObject({ status: 0, code: 'network_error' });
  });

  it('tells every sign-out listener on a 401, before the call fails, until it unsubscribes', async () => {
    const api = client();
    const heard: string[] = [];
    const stopFirst = api.onSignedOut(() => heard.push('first'));
    api.onSignedOut(() => heard.push('second'));
    const failed = api.get('session').catch((e: unknown) => {
      heard.push('rejected');
      return e;
    });
    expect(await failed).toMatchObject({ status: 401, code: 'unauthorized', message: 'Sign in first.' });
    expect(heard).toEqual(['first', 'second', 'rejected']);

    await api.post('refused').catch(() => undefined); // any other refusal says nothing
    expect(heard).toEqual(['first', 'second', 'rejected']);

    stopFirst();
    await api.get('session').catch(() => undefined);
    expect(heard).toEqual(['first', 'second', 'rejected', 'second']);
  });

  it('keeps the listeners of one client to that client', async () => {
    const heard: string[] = [];
    client().onSignedOut(() => heard.push('other app'));
    await client().get('session').catch(() => undefined);
    expect(heard).toEqual([]);
  });

  it('downloads an export as a Blob of the bytes sent, with a POST', async () => {
    const blob = await client().download('export');
    expect(server.received.at(-1)).toMatchObject({ method: 'POST', url: '/prefix/v1/export' });
    expect(JSON.parse(await blob.text())).toEqual({ format: 'svc-account-export-v1' });
    await expect(client().download('refused')).rejects.toMatchObject({ status: 409, code: 'conflict' });
  });

  it('reads the base at each call when it is a function', async () => {
    let prefix = 'one';
    const api = createApiClient({ base: () => new URL(`${server.origin}/${prefix}/v1/`) });
    expect(await api.get('products')).toMatchObject({ url: '/one/v1/products' });
    prefix = 'two';
    expect(await api.get('products')).toMatchObject({ url: '/two/v1/products' });
  });

  it('encodes the parameters of a path, so an ID stays one segment', async () => {
    expect(path`licenses/${'lic_1'}/send-key`).toBe('licenses/lic_1/send-key');
    expect(path`products/${'a/b?c#d'}/keys/${'k 1'}/activate`).toBe('products/a%2Fb%3Fc%23d/keys/k%201/activate');
    expect(await client().get(path`customers/${'../account'}`)).toMatchObject({ url: '/prefix/v1/customers/..%2Faccount' });
  });

  it('builds no query string from an empty or absent query', () => {
    expect(toQuery(undefined)).toBe('');
    expect(toQuery({ q: '', cursor: null })).toBe('');
    expect(toQuery({ q: 'a b&c' })).toBe('?q=a+b%26c');
  });
});
