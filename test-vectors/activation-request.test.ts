import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseActivationRequest } from '@svc-licensing/cert-format';
import { buildRequestVectors, serializeRequestVectors, type RequestVectorFile } from './activation-requests.js';

const PATH = new URL('./activation-request.json', import.meta.url);
const load = (): RequestVectorFile => JSON.parse(readFileSync(PATH, 'utf8'));

describe('test-vectors/activation-request.json', () => {
  it('is exactly what `pnpm vectors` regenerates, byte for byte', () => {
    expect(serializeRequestVectors(buildRequestVectors())).toBe(readFileSync(PATH, 'utf8'));
  });

  it('every case parses to its expected request, or is refused with a reason', () => {
    const file = load();
    expect(file.format).toBe('svc-activation-request-vectors-v1');
    expect(file.cases.filter((c) => c.expected === null).length).toBeGreaterThan(5);
    for (const c of file.cases) {
      const parsed = parseActivationRequest(c.text);
      if (c.expected === null) expect(parsed, c.name).toMatchObject({ ok: false, reason: expect.any(String) });
      else expect(parsed, c.name).toEqual({ ok: true, request: c.expected });
    }
  });
});
