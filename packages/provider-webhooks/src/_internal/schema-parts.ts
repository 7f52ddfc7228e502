import * as v from 'valibot';

/** A non-empty string. */
export const text = v.pipe(v.string(), v.minLength(1, 'expected a non-empty string'));

/** An ISO 8601 timestamp, kept exactly as sent (fractions of a second included). */
export const timestamp = v.pipe(v.string(), v.isoTimestamp('expected an ISO 8601 timestamp'));

/** A positive whole number (a quantity). */
export const positiveInteger = v.pipe(v.number(), v.integer(), v.minValue(1));

/** A whole number of cents, zero or more. */
export const cents = v.pipe(v.number(), v.integer(), v.minValue(0));

/** A numeric ID (provider_b sends numbers; strings are accepted too), as a string. */
export const numericId = v.pipe(
  v.union([v.pipe(v.number(), v.integer(), v.minValue(0)), text], 'expected a numeric ID'),
  v.transform((value) => String(value)),
);
