/** A whole number typed in a field, or null when empty. */
export function intOrNull(text: string): number | null {
  const t = text.trim();
  return t === '' ? null : Number.parseInt(t, 10);
}

/** `YYYY-MM-DD` from a date field → the API's `YYYY-MM-DDT23:59:59Z` (end of that UTC day). */
export function endOfDay(date: string): string {
  return `${date}T23:59:59Z`;
}

/** What a field must hold, said once for every form that has it: the HTML pattern (the API's rule), the hint, and the message when it does not fit. */
export interface FieldRule {
  pattern: string;
  hint: string;
  rule: string;
}

/** A product's license-key prefix (the API: 1-16 letters, digits or hyphens, not starting with a hyphen). */
export const KEY_PREFIX: FieldRule = {
  pattern: '[A-Za-z0-9][A-Za-z0-9\\-]{0,15}',
  hint: 'License keys start with it, e.g. ACME-',
  rule: 'A license key prefix is 1 to 16 letters, digits or hyphens, starting with a letter or digit, e.g. ACME-.',
};

/** A plan's code (the API: a lowercase slug of at most 64 characters). */
export const PLAN_CODE: FieldRule = {
  pattern: '[a-z0-9]+([\\-_][a-z0-9]+)*',
  hint: 'Lowercase letters, digits, - and _, e.g. pro or team-annual; unique in the product; cannot change later',
  rule: 'A plan code is lowercase letters and digits, words joined by a single - or _, with no spaces or capitals.',
};

/** How a customer is named: by their own name when they gave one, else by their e-mail (the API stores the e-mail as the name when none was given). */
export function customerName(customer: { name: string | null; email: string }): string {
  const name = customer.name?.trim() ?? '';
  return name === '' ? customer.email : name;
}

/** True when the customer's name is more than their e-mail address (so both are worth showing). */
export function hasOwnName(customer: { name: string | null; email: string }): boolean {
  const name = customer.name?.trim() ?? '';
  return name !== '' && name.toLowerCase() !== customer.email.toLowerCase();
}
