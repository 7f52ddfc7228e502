// The vendor API as the benchmarks' setup calls it: one request with the account's API key.

/**
 * `method` `/v1{path}` on `url` with `apiKey` as the bearer, `body` as JSON when given; the parsed
 * answer (null for an empty one, e.g. a 204), or an error naming the request, its status and answer.
 */
export async function vendor(url: string, apiKey: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${url}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}
