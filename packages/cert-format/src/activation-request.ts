import { base64urlDecode, base64urlEncode } from './base64url.js';
import { isFingerprint } from './fingerprint.js';
import { utf8Decode, utf8Encode } from './_internal/utf8.js';

/**
 * The text every activation request starts with: the format name and its version, then a dot.
 *
 * @example
 * ```ts
 * text.startsWith(ACTIVATION_REQUEST_PREFIX); // 'SVCREQ1.'
 * ```
 */
export const ACTIVATION_REQUEST_PREFIX = 'SVCREQ1.';

/** Longest accepted `name`, `platform` and `appVersion` (characters). */
export const ACTIVATION_REQUEST_FIELD_MAX = 200;

/**
 * What an air-gapped machine asks for: an activation of `product` on the machine `fingerprint`.
 * The request is not signed (the machine holds no secret); the service checks it exactly as it
 * checks `POST /licenses/activate`.
 */
export interface ActivationRequest {
  /** Format version, 1. */
  v: 1;
  /** The product ID (`prd_...`). */
  product: string;
  /** The machine fingerprint (64 lowercase hex). */
  fingerprint: string;
  /** The application's version, e.g. `2.4.1`. */
  appVersion: string;
  /** When the request was made, Unix seconds (shown to the vendor; not a validity bound). */
  createdAt: number;
  /** A name for the machine, e.g. its host name. */
  name?: string;
  /** The platform, e.g. `linux`. */
  platform?: string;
  /** The license key, when the customer chose to include it. */
  key?: string;
}

/** Result of {@link parseActivationRequest}: the request, or why the text is not one. */
export type ParsedActivationRequest = { ok: true; request: ActivationRequest } | { ok: false; reason: string };

const OPTIONAL = ['name', 'platform', 'key'] as const;

const checkString = (value: unknown, field: string, max: number): string | null => {
  if (typeof value !== 'string' || value.trim() === '') return `${field} must be a non-empty string`;
  if (value.length > max) return `${field} must be at most ${max} characters`;
  return null;
};

/** Field checks shared by encode (throws) and parse (returns the reason). */
function problem(doc: Record<string, unknown>): string | null {
  if (doc.v !== 1) return 'v must be 1';
  const product = checkString(doc.product, 'product', ACTIVATION_REQUEST_FIELD_MAX);
  if (product) return product;
  if (!isFingerprint(doc.fingerprint)) return 'fingerprint must be 64 lowercase hex characters';
  const appVersion = checkString(doc.appVersion, 'appVersion', ACTIVATION_REQUEST_FIELD_MAX);
  if (appVersion) return appVersion;
  if (typeof doc.createdAt !== 'number' || !Number.isSafeInteger(doc.createdAt) || doc.createdAt < 0) {
    return 'createdAt must be Unix seconds';
  }
  for (const field of OPTIONAL) {
    if (doc[field] === undefined) continue;
    const bad = checkString(doc[field], field, ACTIVATION_REQUEST_FIELD_MAX);
    if (bad) return bad;
  }
  return null;
}

/**
 * Encodes an activation request as `SVCREQ1.<base64url(UTF-8 JSON)>` with the fields in a fixed
 * order (`v`, `product`, `fingerprint`, `appVersion`, `createdAt`, then `name`, `platform`, `key`
 * when present), so the same request always gives the same text. Throws a `TypeError` on a field
 * that {@link parseActivationRequest} would refuse.
 *
 * @example
 * ```ts
 * const text = encodeActivationRequest({ v: 1, product: 'prd_123', fingerprint, appVersion: '2.4.1', createdAt: 1767225600 });
 * // 'SVCREQ1.eyJ2IjoxLCJwcm9kdWN0Ijoi...'
 * ```
 */
export function encodeActivationRequest(request: ActivationRequest): string {
  const bad = problem(request as unknown as Record<string, unknown>);
  if (bad) throw new TypeError(`encodeActivationRequest: ${bad}`);
  const ordered: Record<string, unknown> = {
    v: 1,
    product: request.product,
    fingerprint: request.fingerprint,
    appVersion: request.appVersion,
    createdAt: request.createdAt,
  };
  for (const field of OPTIONAL) if (request[field] !== undefined) ordered[field] = request[field];
  return ACTIVATION_REQUEST_PREFIX + base64urlEncode(utf8Encode(JSON.stringify(ordered)));
}

/**
 * Parses an activation request as pasted or uploaded: surrounding and embedded whitespace (line
 * breaks added by a mail client or an editor) is ignored; everything else must be exact. Unknown
 * fields are ignored, so a later minor addition stays readable; another version prefix is refused.
 * Never throws.
 *
 * @example
 * ```ts
 * const parsed = parseActivationRequest(uploadedText);
 * if (parsed.ok) console.log(parsed.request.product, parsed.request.fingerprint);
 * else console.log(parsed.reason);
 * ```
 */
export function parseActivationRequest(text: unknown): ParsedActivationRequest {
  if (typeof text !== 'string') return { ok: false, reason: 'expected the text of an activation request' };
  const compact = text.replace(/\s+/g, '');
  if (!compact.startsWith(ACTIVATION_REQUEST_PREFIX)) {
    return { ok: false, reason: `an activation request starts with ${ACTIVATION_REQUEST_PREFIX}` };
  }
  if (compact.length > 4096) return { ok: false, reason: 'the activation request is too long' };
  const bytes = base64urlDecode(compact.slice(ACTIVATION_REQUEST_PREFIX.length));
  const json = bytes === undefined ? undefined : utf8Decode(bytes);
  let doc: unknown;
  try {
    doc = json === undefined ? undefined : JSON.parse(json);
  } catch {
    doc = undefined;
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    return { ok: false, reason: 'the activation request is damaged (incomplete copy?)' };
  }
  const record = doc as Record<string, unknown>;
  const bad = problem(record);
  if (bad) return { ok: false, reason: bad };
  const request: ActivationRequest = {
    v: 1,
    product: record.product as string,
    fingerprint: record.fingerprint as string,
    appVersion: record.appVersion as string,
    createdAt: record.createdAt as number,
  };
  for (const field of OPTIONAL) if (typeof record[field] === 'string') request[field] = record[field] as string;
  return { ok: true, request };
}
