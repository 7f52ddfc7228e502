import type { Timestamp } from './records.js';
import { LicensingError } from './errors.js';
import { isCalendarInstant, MAX_TIMESTAMP_MS } from './timestamp.js';

export { MAX_TIMESTAMP_MS } from './timestamp.js';

const DAY_MS = 86_400_000;
const ISO = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * The last two seconds {@link toTimestamp} formatted, newest first: most calls come within the same
 * second, and a lease's end (now + its length) alternates with now.
 */
let second0 = NaN;
let text0 = '';
let second1 = NaN;
let text1 = '';

/** `YYYY-MM-DDThh:mm:ssZ` for a time in milliseconds (fractions dropped). */
export function toTimestamp(ms: number): Timestamp {
  const second = Math.floor(ms / 1000);
  if (second === second0) return text0;
  if (second === second1) return text1;
  const text = new Date(second * 1000).toISOString().replace('.000Z', 'Z');
  [second1, text1, second0, text0] = [second0, text0, second, text];
  return text;
}

/**
 * The last two timestamps {@link timestampMs} parsed, newest first: a heartbeat reads the same
 * lease end and `lastSeenAt` several times (keptLease, isLive, quickRenewal), each a `Date.parse`.
 */
let parsed0 = '';
let ms0 = NaN;
let parsed1 = '';
let ms1 = NaN;

/** Milliseconds since the epoch of a stored timestamp. */
export function timestampMs(ts: Timestamp): number {
  if (ts === parsed0) return ms0;
  if (ts === parsed1) return ms1;
  const ms = Date.parse(ts);
  [parsed1, ms1, parsed0, ms0] = [parsed0, ms0, ts, ms];
  return ms;
}

/** Unix seconds of a stored timestamp. */
export function unixSeconds(ts: Timestamp): number {
  return Math.floor(Date.parse(ts) / 1000);
}

/** True when `days` after `ts` is still a four-digit-year timestamp (so `validUntil` can be written). */
export function fitsAfterDays(ts: Timestamp, days: number): boolean {
  return timestampMs(ts) + days * DAY_MS <= MAX_TIMESTAMP_MS;
}

export function addDays(ts: Timestamp, days: number): Timestamp {
  return toTimestamp(timestampMs(ts) + days * DAY_MS);
}

/** Splits an ISO 8601 instant into whole UTC milliseconds (no fraction) and microseconds within the second. */
function parseInstant(text: string): { secondsMs: number; micros: number } | null {
  const m = ISO.exec(text);
  if (!m) return null;
  const [, date, time, fraction = '', zone = 'Z'] = m;
  if (!isCalendarInstant(date!, time!)) return null;
  const offset = zone === 'Z' ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  if (offset !== 'Z' && (Number(offset.slice(1, 3)) > 23 || Number(offset.slice(4, 6)) > 59)) return null;
  const secondsMs = Date.parse(`${date}T${time}${offset}`);
  if (Number.isNaN(secondsMs) || secondsMs > MAX_TIMESTAMP_MS) return null;
  return { secondsMs, micros: Number(fraction.padEnd(6, '0').slice(0, 6)) };
}

/** Parses an ISO 8601 input (any precision, any offset) into a stored timestamp, or throws `invalid_request`. */
export function parseTimestampInput(value: unknown, field: string): Timestamp {
  const parsed = typeof value === 'string' ? parseInstant(value) : null;
  if (!parsed) throw new LicensingError('invalid_request', `${field} must be an ISO 8601 timestamp such as 2030-01-31T00:00:00Z`);
  return toTimestamp(parsed.secondsMs);
}

/**
 * The ordering key of a provider event: `occurredAt` in UTC with microseconds, fixed width, then
 * `|` and the event ID, so plain string comparison orders events, also within one second.
 */
export function eventOrderKey(occurredAt: string, eventId: string): string {
  const parsed = parseInstant(occurredAt);
  if (!parsed) throw new LicensingError('invalid_request', `occurredAt must be an ISO 8601 timestamp, got ${JSON.stringify(occurredAt)}`);
  const seconds = new Date(parsed.secondsMs).toISOString().slice(0, 19);
  return `${seconds}.${String(parsed.micros).padStart(6, '0')}Z|${eventId}`;
}
