/** The spec's timestamps: `YYYY-MM-DDThh:mm:ssZ`, UTC, real calendar instants, four-digit years. */

/** A stored time: an ISO 8601 UTC string `YYYY-MM-DDThh:mm:ssZ` (see `records.ts`). */
export type Timestamp = string;

/** The last instant a stored timestamp can hold: its year has four digits. */
export const MAX_TIMESTAMP_MS = Date.UTC(9999, 11, 31, 23, 59, 59);

/**
 * True when `YYYY-MM-DD` and `hh:mm:ss` name a real calendar date and time of day: no February 30,
 * no February 29 outside leap years, no hour 24, no second 60 (`Date.parse` would roll them over).
 */
export function isCalendarInstant(date: string, time: string): boolean {
  const [y, mo, d] = date.split('-').map(Number) as [number, number, number];
  const [h, mi, s] = time.split(':').map(Number) as [number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return false;
  const daysInMonth = new Date(Date.UTC(2000, mo, 0)).getUTCDate() - (mo === 2 && !isLeapYear(y) ? 1 : 0);
  return d <= daysInMonth;
}

const SPEC_TIMESTAMP = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.\d{1,9})?Z$/;

/**
 * True for a timestamp in the spec's form `YYYY-MM-DDThh:mm:ssZ` (a fraction of a second is
 * tolerated) that names a real calendar instant: `2024-02-30T00:00:00Z`, `2023-02-29T00:00:00Z`
 * and `2024-01-01T24:00:00Z` are refused instead of rolling over.
 *
 * @example
 * ```ts
 * isTimestamp('2024-02-29T12:00:00Z'); // true
 * isTimestamp('2023-02-29T12:00:00Z'); // false
 * ```
 */
export function isTimestamp(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const m = SPEC_TIMESTAMP.exec(value);
  return m !== null && isCalendarInstant(m[1]!, m[2]!);
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
