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
