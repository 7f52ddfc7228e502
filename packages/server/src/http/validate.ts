import * as v from 'valibot';
import { ApiError } from './errors.js';

/**
 * Validates `input` against a route schema; a failure is `400 invalid_request` whose message
 * names the field (`body.seats: must be >= 1`).
 *
 * @example
 * const body = validate(CreateApiKeyBody, await readJsonBody(event, limit), 'body');
 */
export function validate<S extends v.GenericSchema>(schema: S, input: unknown, where: 'body' | 'query'): Validated<S> {
  const array = arrayForObject(schema, input, '');
  if (array !== null) throw new ApiError('invalid_request', `${array ? `${where}.${array}` : where}: must be a JSON object, not an array`);
  const result = v.safeParse(schema, input);
  if (result.success) return withoutUndefined(result.output) as Validated<S>;
  const issue = result.issues[0];
  const path = v.getDotPath(issue);
  const field = path ? `${where}.${path}` : where;
  throw new ApiError('invalid_request', `${field}: ${describe(issue, where, input)}`);
}

type Walkable = v.GenericSchema & {
  entries?: Record<string, v.GenericSchema>;
  wrapped?: v.GenericSchema;
  value?: v.GenericSchema;
  item?: v.GenericSchema;
  options?: readonly v.GenericSchema[];
};
const OBJECTS = new Set(['object', 'strict_object', 'loose_object', 'object_with_rest', 'record', 'variant']);

/**
 * The dot path of the first JSON array given where the schema wants an object, or null. Valibot's
 * object and record schemas accept arrays (an array is an object to `typeof`), which would store
 * `["a","b"]` as `{"0":"a","1":"b"}`; arrays are refused before validation instead.
 */
function arrayForObject(schema: v.GenericSchema, input: unknown, path: string): string | null {
  const s = schema as Walkable;
  if (s.wrapped !== undefined) return arrayForObject(s.wrapped, input, path);
  if (typeof input !== 'object' || input === null) return null;
  if (Array.isArray(input)) {
    if (OBJECTS.has(s.type)) return path;
    if (s.type !== 'array' || s.item === undefined) return null;
    for (const [i, item] of input.entries()) {
      const found = arrayForObject(s.item, item, path ? `${path}.${i}` : String(i));
      if (found !== null) return found;
    }
    return null;
  }
  const fields = input as Record<string, unknown>;
  const at = (key: string) => (path ? `${path}.${key}` : key);
  if (s.entries !== undefined) {
    for (const key in s.entries) {
      if (!Object.hasOwn(s.entries, key) || !Object.hasOwn(fields, key)) continue;
      const entry = s.entries[key]!;
      // Only an object can hold an array where an object belongs: a string field needs no walk (nor its path).
      if (typeof fields[key] !== 'object' || fields[key] === null) continue;
      const found = arrayForObject(entry, fields[key], at(key));
      if (found !== null) return found;
    }
  } else if (s.type === 'record' && s.value !== undefined) {
    for (const key of Object.keys(fields)) {
      const found = arrayForObject(s.value, fields[key], at(key));
      if (found !== null) return found;
    }
  } else if (s.options !== undefined) {
    for (const option of s.options) {
      const found = arrayForObject(option, input, path);
      if (found !== null) return found;
    }
  }
  return null;
}

function describe(issue: v.BaseIssue<unknown>, where: 'body' | 'query', input: unknown): string {
  if (issue.type === 'strict_object' && issue.expected === 'never') return 'unknown field';
  if (issue.path === undefined && (input === undefined || input === null)) {
    return where === 'body' ? 'a JSON object is required' : 'required';
  }
  if (issue.kind === 'schema' && issue.input === undefined) return 'is required';
  return issue.message;
}

/** A schema's output with absent optional fields typed as absent (not `undefined`), as the engine expects. */
export type Validated<S extends v.GenericSchema> = Defined<v.InferOutput<S>>;
type Defined<T> = T extends object ? { [K in keyof T]: Exclude<T[K], undefined> } : T;

function withoutUndefined(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  let absent = false;
  for (const field in value) {
    if ((value as Record<string, unknown>)[field] === undefined) {
      absent = true;
      break;
    }
  }
  if (!absent) return value; // valibot's output is its own new object: nothing to copy
  const out: Record<string, unknown> = {};
  for (const field in value) {
    const v = (value as Record<string, unknown>)[field];
    if (v !== undefined) out[field] = v;
  }
  return out;
}
