import * as v from 'valibot';
import { WebhookParseError } from './errors.js';
import type { RawBody } from './types.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The JSON value of a raw body, or an `invalid_json` error. */
export function readJson(rawBody: RawBody): { ok: true; value: unknown } | { ok: false; error: WebhookParseError } {
  try {
    const text = typeof rawBody === 'string' ? rawBody : utf8.decode(rawBody);
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (cause) {
    return { ok: false, error: new WebhookParseError('invalid_json', 'The body is not valid UTF-8 JSON.', { cause }) };
  }
}

/** Validates `input` against `schema`; the first issue becomes an `invalid_payload` error with its path. */
export function validate<TSchema extends v.GenericSchema>(
  schema: TSchema,
  input: unknown,
  pathPrefix: string | null = null,
): { ok: true; value: v.InferOutput<TSchema> } | { ok: false; error: WebhookParseError } {
  const result = v.safeParse(schema, input, { abortEarly: true });
  if (result.success) return { ok: true, value: result.output };
  const issue = result.issues[0];
  const inner = v.getDotPath(issue);
  const path = [pathPrefix, inner].filter((part): part is string => part !== null && part !== '').join('.') || null;
  const where = path === null ? 'The body' : `Field \`${path}\``;
  return {
    ok: false,
    error: new WebhookParseError('invalid_payload', `${where}: ${issue.message}`, { path }),
  };
}
