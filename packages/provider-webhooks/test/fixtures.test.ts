import { describe, expect, it } from 'vitest';
import { fixtureJson, fixtureNames } from '../../../fixtures/index.js';
import { PROVIDER_A_EVENT_TYPES, PROVIDER_B_EVENT_TYPES } from '../src/index.js';

describe('shared provider fixtures', () => {
  it('cover every provider_a event type the service acts on, each file named after its event type', () => {
    const names = fixtureNames('provider_a');
    for (const type of PROVIDER_A_EVENT_TYPES) expect(names).toContain(type);
    for (const name of names) expect(name.startsWith(fixtureJson('provider_a', name).event_type)).toBe(true);
  });

  it('cover every provider_b event type the service acts on, each file named after its event name', () => {
    const names = fixtureNames('provider_b');
    expect(names).toEqual([...PROVIDER_B_EVENT_TYPES].sort());
    for (const name of names) expect(fixtureJson('provider_b', name).meta.event_name).toBe(name);
  });
});
