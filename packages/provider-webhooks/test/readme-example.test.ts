import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it, vi } from 'vitest';

it('the README example runs and prints the purchase it read', async () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const code = /## Example\s+```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(code).toContain('readWebhook');
  const file = join(mkdtempSync(join(tmpdir(), 'provider-webhooks-readme-')), 'example.ts');
  writeFileSync(file, code!);
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  try {
    await import(/* @vite-ignore */ file);
    expect(log).toHaveBeenCalledTimes(1);
    expect(log.mock.calls[0]?.[0]).toBe('purchase_completed');
    expect(log.mock.calls[0]?.[1]).toMatchObject({ orderId: 'txn_01hv8wptq3fpj5ek4xm5p3khb0', priceId: 'pri_01hv0w3gq5t6wkq9r2dq7y8m1b', quantity: 1 });
  } finally {
    log.mockRestore();
  }
});
