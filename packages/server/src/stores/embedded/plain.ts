/**
 * Copies of stored records. Records are plain JSON data (the journal and the snapshots hold them
 * as JSON): objects, arrays, strings, numbers, booleans and null, so a walk of plain objects and
 * arrays copies them exactly, at a fraction of `structuredClone`'s cost. Anything else (a typed
 * array, a Date, a Map) is handed to `structuredClone`, as before.
 */

const plainObject = (value: object): boolean => {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
};

/** A deep copy of `value`: plain objects and arrays walked, anything else that is an object by `structuredClone`. */
export function copyPlain<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyPlain(value[i] as unknown);
    return out as T;
  }
  if (!plainObject(value)) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = copyPlain((value as Record<string, unknown>)[key]);
  return out as T;
}

/**
 * Whether two stored records have the same JSON (what the journal would hold), without encoding
 * them: a claim or a recorded attempt changes a delivery whose body is kilobytes of JSON, and two
 * encodings per written record cost more than the write. Fields holding `undefined` count as
 * absent, as in JSON; anything but plain JSON values (a `toJSON`) is compared by its encoding.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if ('toJSON' in a || 'toJSON' in b) return JSON.stringify(a) === JSON.stringify(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i] ?? null, b[i] ?? null)) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let keys = 0;
  for (const key in x) {
    if (x[key] === undefined) continue;
    keys++;
    if (!sameJson(x[key], y[key])) return false;
  }
  for (const key in y) if (y[key] !== undefined) keys--;
  return keys === 0;
}
