import { describe, expect, it } from 'vitest';
import { createJsonLogger } from '../../src/http/log.js';
import type { RequestLogLine } from '../../src/http/log.js';

const line = (i: number): RequestLogLine => ({ time: '2030-01-01T00:00:00.000Z', method: 'POST', path: `/v1/r${i}`, status: 200, durationMs: i });
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('JSON request log', () => {
  it('writes every line, whole and in order, once the event-loop turn ends', async () => {
    const writes: string[] = [];
    const log = createJsonLogger({ write: (text: string) => writes.push(text) });
    for (let i = 0; i < 3; i++) log(line(i));
    await nextTurn();
    log(line(3));
    await nextTurn();
    const lines = writes.join('').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((l) => JSON.parse(l) as RequestLogLine)).toEqual([0, 1, 2, 3].map(line));
    expect(writes.every((w) => w.endsWith('\n'))).toBe(true);
  });

  it('does not hold more than 64 KiB of lines back', () => {
    const writes: string[] = [];
    const log = createJsonLogger({ write: (text: string) => writes.push(text) });
    for (let i = 0; i < 1000; i++) log(line(i));
    expect(writes.join('').length).toBeGreaterThan(64 * 1024);
  });
});
