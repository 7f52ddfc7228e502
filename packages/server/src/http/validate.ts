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
  const result = v.safeParse(schema, input);
  if (result.success) return withoutUndefined(result.output) as Validated<S>;
  const issue = result.issues[0];
  const path = v.getDotPath(issue);
  const field = path ? `${where}.${path}` : where;
  throw new ApiError('invalid_request', `${field}: ${describe(issue, where, input)}`);
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
  const out: Record<string, unknown> = {};
  for (const field in value) {
    const v = (value as Record<string, unknown>)[field];
    if (v !== undefined) out[field] = v;
  }
  return out;
}
