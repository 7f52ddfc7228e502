/**
 * What a form says about a field it cannot send, in words a person reads next to the field: built
 * from the field's label and the browser's validity flags before sending, or from the API's
 * `invalid_request` refusal after (whose message starts with the field's path, `body.keyPrefix: …`,
 * and is never shown with that path).
 */

/** What the check needs to know of a field (a plain object, so this module runs without a DOM). */
export interface FieldFacts {
  /** The field's label, as shown. */
  label: string;
  /** `input` type (`text`, `email`, `number`, `url`, …), or `select` / `textarea`. */
  type: string;
  validity: Pick<
    ValidityState,
    'valid' | 'valueMissing' | 'typeMismatch' | 'patternMismatch' | 'tooLong' | 'tooShort' | 'rangeUnderflow' | 'rangeOverflow' | 'stepMismatch' | 'badInput'
  >;
  min?: string;
  max?: string;
  maxLength?: number;
  /** The field's own sentence saying what a valid value is (`data-rule`). */
  rule?: string;
}

/** The message for a field the browser finds invalid, or null when it is valid. */
export function fieldMessage(field: FieldFacts): string | null {
  const { label, type, validity: v } = field;
  if (v.valid) return null;
  if (v.valueMissing) return type === 'select' ? `Choose the ${lower(label)}.` : `${label} is required.`;
  if (field.rule) return field.rule;
  if (v.typeMismatch && type === 'email') return `${label} must be an e-mail address, like jo@example.com.`;
  if (v.typeMismatch && type === 'url') return `${label} must be a web address, like https://example.com/licenses.`;
  if (type === 'number' && (v.badInput || v.stepMismatch || v.rangeUnderflow || v.rangeOverflow)) {
    const { min, max } = field;
    if (min && max) return `${label} must be a whole number from ${min} to ${max}.`;
    if (min) return `${label} must be a whole number, ${min} or more.`;
    return `${label} must be a whole number.`;
  }
  if (v.tooLong && field.maxLength !== undefined) return `${label} must be at most ${field.maxLength} characters.`;
  if (v.badInput && type === 'date') return `${label} must be a date.`;
  return `${label} is not valid.`;
}

/** A refusal of the API about one field: the field's path in the request and what is wrong. */
export interface ApiFieldRefusal {
  /** Candidate field names, the most precise first: `customerPortal.url`, then `customerPortal`. */
  paths: string[];
  /** What the API says is wrong, e.g. `must be 1-16 letters, digits or hyphens`. */
  problem: string;
}

/**
 * Reads the field an `invalid_request` message is about (`body.keyPrefix: must be …`,
 * `query.email: …`). Null when the message names no field.
 */
export function apiFieldRefusal(message: string): ApiFieldRefusal | null {
  const match = /^(?:body|query)\.([A-Za-z0-9_.-]+): (.+)$/s.exec(message);
  if (!match) return null;
  const segments = match[1]!.split('.');
  const paths = segments.map((_, i) => segments.slice(0, segments.length - i).join('.'));
  return { paths, problem: match[2]! };
}

/** The API's problem with a field, said of the field's label: `License key prefix must be 1-16 letters, digits or hyphens.` */
export function refusalMessage(label: string, problem: string): string {
  const text = problem
    .trim()
    .replace(/\.$/, '')
    .replace(/^must be >= (\d+)$/, 'must be $1 or more')
    .replace(/^must be <= (\d+)$/, 'must be $1 or less');
  if (text === 'unknown field') return `${label} is not accepted here.`;
  if (/^(must|is|are|has|cannot|does|should)\b/.test(text)) return `${label} ${text}.`;
  return `${label}: ${text}.`;
}

function lower(label: string): string {
  return label.charAt(0).toLowerCase() + label.slice(1);
}
