/**
 * `Promise.all` for the steps of one unit of work asked for in the same turn (a store may send
 * them as one query): it rejects only once every step has settled, with the first failure in
 * the order given, so no step of a failed unit is still talking to the store when it rolls back.
 */
export async function together<const T extends readonly unknown[]>(steps: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const results = await Promise.allSettled(steps);
  for (const result of results) if (result.status === 'rejected') throw result.reason;
  return results.map((result) => (result as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
}
