import { describe, expect, it } from 'vitest';
import { apiFieldRefusal, fieldMessage, refusalMessage, type FieldFacts } from '../src/ui/field-messages.js';
import { KEY_PREFIX, PLAN_CODE, customerName, hasOwnName } from '../src/dashboard/format.js';
import { describeEvent } from '../src/dashboard/widgets/event-table.js';

const valid = {
  valid: true, valueMissing: false, typeMismatch: false, patternMismatch: false, tooLong: false, tooShort: false,
  rangeUnderflow: false, rangeOverflow: false, stepMismatch: false, badInput: false,
};
const field = (facts: Partial<FieldFacts> & { flags?: Partial<typeof valid> }): FieldFacts => ({
  label: 'Seats',
  type: 'text',
  ...facts,
  validity: { ...valid, ...facts.flags, valid: facts.flags === undefined },
});

describe('what a form says about a field it will not send', () => {
  it('names the field by its label, and says what a valid value is', () => {
    expect(fieldMessage(field({}))).toBeNull();
    expect(fieldMessage(field({ label: 'Customer e-mail', flags: { valueMissing: true } }))).toBe('Customer e-mail is required.');
    expect(fieldMessage(field({ label: 'Plan', type: 'select', flags: { valueMissing: true } }))).toBe('Choose the plan.');
    expect(fieldMessage(field({ label: 'Reply-to address', type: 'email', flags: { typeMismatch: true } }))).toBe('Reply-to address must be an e-mail address, like jo@example.com.');
    expect(fieldMessage(field({ type: 'number', min: '1', max: '365', flags: { rangeOverflow: true } }))).toBe('Seats must be a whole number from 1 to 365.');
    expect(fieldMessage(field({ type: 'number', min: '1', flags: { stepMismatch: true } }))).toBe('Seats must be a whole number, 1 or more.');
    // A field's own rule is its message when the value does not fit its pattern.
    expect(fieldMessage(field({ label: 'Code', rule: PLAN_CODE.rule, flags: { patternMismatch: true } }))).toBe(PLAN_CODE.rule);
    expect(fieldMessage(field({ label: 'Code', flags: { patternMismatch: true } }))).toBe('Code is not valid.');
  });

  it('reads the field an invalid_request refusal is about, the most precise path first', () => {
    expect(apiFieldRefusal('body.keyPrefix: must be 1-16 letters, digits or hyphens')).toEqual({ paths: ['keyPrefix'], problem: 'must be 1-16 letters, digits or hyphens' });
    expect(apiFieldRefusal('body.customerPortal.url: must be an https URL')).toEqual({ paths: ['customerPortal.url', 'customerPortal'], problem: 'must be an https URL' });
    expect(apiFieldRefusal('query.email: must be an e-mail address')?.paths).toEqual(['email']);
    expect(apiFieldRefusal('body: a JSON object is required')).toBeNull();
    expect(apiFieldRefusal('a plan with this code already exists')).toBeNull();
  });

  it('says the API\'s problem of the field\'s label, in a sentence', () => {
    expect(refusalMessage('License key prefix', 'must be 1-16 letters, digits or hyphens')).toBe('License key prefix must be 1-16 letters, digits or hyphens.');
    expect(refusalMessage('Seats', 'must be >= 1')).toBe('Seats must be 1 or more.');
    expect(refusalMessage('Seats', 'must be <= 100000')).toBe('Seats must be 100000 or less.');
    expect(refusalMessage('Name', 'at most 200 characters')).toBe('Name: at most 200 characters.');
    expect(refusalMessage('Name', 'unknown field')).toBe('Name is not accepted here.');
  });

  it('holds the same rules as the API for a key prefix and a plan code', () => {
    const fits = (rule: { pattern: string }, value: string) => new RegExp(`^(?:${rule.pattern})$`, 'v').test(value);
    // The API's own expressions (packages/server/src/http/schemas.ts).
    const apiPrefix = /^[A-Za-z0-9][A-Za-z0-9-]{0,15}$/;
    const apiCode = /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/;
    for (const value of ['ACME-', 'A', 'acme-2', '-ACME', 'ACME PRO', 'ACME_', 'A234567890123456', 'A2345678901234567']) expect(fits(KEY_PREFIX, value), value).toBe(apiPrefix.test(value));
    for (const value of ['pro', 'team-annual', 'a_b-c', 'Pro', 'pro plan', '-pro', 'pro-', 'pro--x', '']) expect(fits(PLAN_CODE, value), value).toBe(apiCode.test(value));
  });
});

describe('how the dashboard names customers and events', () => {
  it('names a customer by their own name, else once by the e-mail the API stores as the name', () => {
    expect(customerName({ name: 'Jo', email: 'jo@x.test' })).toBe('Jo');
    expect(customerName({ name: 'jo@x.test', email: 'jo@x.test' })).toBe('jo@x.test');
    expect(customerName({ name: '', email: 'jo@x.test' })).toBe('jo@x.test');
    expect(hasOwnName({ name: 'JO@x.test', email: 'jo@x.test' })).toBe(false);
    expect(hasOwnName({ name: 'Jo', email: 'jo@x.test' })).toBe(true);
  });

  it('says what an event did in words, without its IDs or fingerprints', () => {
    const event = (type: string, data: Record<string, unknown>) => ({ id: 'evt_1', type, license: 'lic_1', data, createdAt: '2026-01-01T00:00:00Z' }) as never;
    const machines = new Map([['act_1', 'Studio laptop']]);
    expect(describeEvent(event('license.status_changed', { from: 'perpetual', to: 'revoked', source: 'vendor' }))).toBe('Perpetual → Revoked (vendor)');
    expect(describeEvent(event('activation.created', { activation: 'act_1', fingerprint: 'f'.repeat(64) }), machines)).toBe('Studio laptop, online');
    expect(describeEvent(event('activation.created', { activation: 'act_2', fingerprint: 'f'.repeat(64), source: 'offline' }), machines)).toBe('A machine, offline, from a request file');
    expect(describeEvent(event('activation.deleted', { activation: 'act_2', fingerprint: 'f'.repeat(64), source: 'portal' }))).toBe('A machine freed by the customer in the portal');
    expect(describeEvent(event('license.created', { plan: 'pro', source: 'provider_a' }))).toBe('Plan pro, from provider_a');
    expect(describeEvent(event('signing_key.rotated', { product: 'prd_1', kid: 'k2', retiredKid: 'k1' }))).toBe('k2 signs now; k1 retired');
  });
});
