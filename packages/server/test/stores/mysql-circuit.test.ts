import { describe, expect, test } from 'vitest';
import { createCircuit } from '../../src/stores/mysql/circuit.js';

// The circuit alone, with a probe the test fails or passes: what opens it and what closes it.
const failingProbe = () => Promise.reject(new Error('connect ETIMEDOUT'));
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('mysql store circuit', () => {
  test('a failed probe with no answer meanwhile opens it: calls fail at once and statements in flight are aborted', async () => {
    const circuit = createCircuit({ probe: failingProbe, probeEveryMs: 60_000 });
    const aborted: string[] = [];
    circuit.track((error) => aborted.push(error.code));
    circuit.suspect();
    await settle();
    expect(circuit.open).toBe(true);
    expect(() => circuit.check()).toThrow(expect.objectContaining({ code: 'store_unavailable' }));
    expect(aborted).toEqual(['store_timeout']);
    circuit.close();
  });

  test('a probe that fails while statements are being answered leaves it closed', async () => {
    let fail: (error: Error) => void = () => undefined;
    const circuit = createCircuit({ probe: () => new Promise((_resolve, reject) => (fail = reject)), probeEveryMs: 60_000 });
    circuit.suspect();
    circuit.answered();
    fail(new Error('probe got no answer'));
    await settle();
    expect(circuit.open).toBe(false);
    circuit.close();
  });

  test('an answer closes an open circuit: a probe begun during an outage may fail after the database is back', async () => {
    const circuit = createCircuit({ probe: failingProbe, probeEveryMs: 60_000 });
    circuit.suspect();
    await settle();
    expect(circuit.open).toBe(true);
    circuit.answered();
    expect(circuit.open).toBe(false);
    expect(() => circuit.check()).not.toThrow();
    circuit.close();
  });
});
