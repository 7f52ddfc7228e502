// Checks real answers against the OpenAPI document the app serves: each answer's status must be
// documented for its operation, and its body must validate against the published schema (JSON
// Schema 2020-12, by ajv), so the document is tested as a client reads it.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { Harness } from './harness.js';

/** An operation as the document names it: `METHOD /path/{param}`. */
export type Operation = `${'GET' | 'POST' | 'PATCH' | 'DELETE'} /${string}`;

/** How a call is made: path parameters, a JSON body (or raw text), headers. */
export interface CallOptions {
  params?: Record<string, string>;
  query?: string;
  json?: unknown;
  raw?: string;
  headers?: Record<string, string>;
}

export interface ContractAnswer {
  status: number;
  headers: Headers;
  body: any;
}

/** Calls operations of one app, and records each answer with the operation it answers. */
export interface ContractRecorder {
  call(op: Operation, options?: CallOptions): Promise<ContractAnswer>;
  /** Every answer so far that its document does not allow, described for the failure message. */
  violations(): string[];
  /** The statuses answered per operation (`POST /v1/licenses` → [201, 400, ...]). */
  answered(): Map<Operation, Set<number>>;
}

interface OpenApiDoc {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>>;
  components: { schemas: Record<string, object> };
}

/** Reads the app's own `GET /v1/openapi.json` and returns a recorder that checks answers against it. */
export async function contractRecorder(h: Pick<Harness, 'fetch'>): Promise<ContractRecorder & { doc: OpenApiDoc }> {
  const doc = (await (await h.fetch('/v1/openapi.json')).json()) as OpenApiDoc;
  // Strict: a keyword ajv does not know (a typo in the document) is an error, not ignored.
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  // The operations' `$ref`s point into the document's components: each schema is compiled as the
  // root of a document holding them.
  ajv.addKeyword({ keyword: 'components' });
  const validators = new Map<string, ValidateFunction>();
  const validator = (key: string, schema: object) => {
    let found = validators.get(key);
    if (!found) {
      found = ajv.compile({ ...schema, components: doc.components });
      validators.set(key, found);
    }
    return found;
  };
  const violations: string[] = [];
  const answered = new Map<Operation, Set<number>>();

  const check = (op: Operation, status: number, contentType: string | null, text: string) => {
    const [method, path] = op.split(' ') as [string, string];
    const operation = doc.paths[path]?.[method.toLowerCase()];
    if (!operation) return violations.push(`${op}: not in the document`);
    const response = operation.responses[String(status)];
    if (!response) return violations.push(`${op} answered ${status}, which the document does not list: ${text.slice(0, 300)}`);
    if (!response.content) return text === '' ? undefined : violations.push(`${op} ${status}: a body the document does not show: ${String(text).slice(0, 200)}`);
    const plain = response.content['text/plain'];
    if (plain) {
      // A text answer (the revocation list): its schema describes the text itself.
      if (!/^text\/plain\b/.test(contentType ?? '')) return violations.push(`${op} ${status}: content-type ${contentType}`);
      const validate = validator(`${op} ${status}`, plain.schema);
      return validate(text) ? undefined : violations.push(`${op} ${status}: ${JSON.stringify(validate.errors)}\n  body: ${String(text).slice(0, 300)}`);
    }
    const media = response.content['application/json'];
    if (!media) return violations.push(`${op} ${status}: the document shows no JSON body`);
    if (!/^application\/json\b/.test(contentType ?? '')) return violations.push(`${op} ${status}: content-type ${contentType}`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return violations.push(`${op} ${status}: not JSON: ${text.slice(0, 200)}`);
    }
    const validate = validator(`${op} ${status}`, media.schema);
    if (!validate(body)) {
      const where = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
      violations.push(`${op} ${status}: ${where.slice(0, 8).join('; ')}\n  body: ${text.slice(0, 600)}`);
    }
    return undefined;
  };

  return {
    doc,
    async call(op, options = {}) {
      const [method, template] = op.split(' ') as [string, string];
      const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
        const value = options.params?.[name];
        if (value === undefined) throw new Error(`${op}: no value for {${name}}`);
        return encodeURIComponent(value);
      });
      const headers: Record<string, string> = { ...options.headers };
      let body: string | undefined;
      if (options.json !== undefined || options.raw !== undefined) {
        headers['content-type'] ??= 'application/json';
        body = options.raw ?? JSON.stringify(options.json);
      }
      const res = await h.fetch(`${path}${options.query ? `?${options.query}` : ''}`, { method, headers, ...(body === undefined ? {} : { body }) });
      const text = await res.text();
      check(op, res.status, res.headers.get('content-type'), text);
      const statuses = answered.get(op) ?? new Set<number>();
      answered.set(op, statuses.add(res.status));
      let parsed: unknown = null;
      try {
        parsed = text === '' ? null : JSON.parse(text);
      } catch {
        parsed = text;
      }
      return { status: res.status, headers: res.headers, body: parsed };
    },
    violations: () => [...violations],
    answered: () => answered,
  };
}
