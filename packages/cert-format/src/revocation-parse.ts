import { base64urlDecode } from './base64url.js';
import { decodeNative } from './_internal/base64url-bulk.js';
import type { RevocationListContent } from './revocation-list.js';
import { readEntryTable } from './_internal/revocation-tables-wasm.js';

/** Result of {@link parseRevocationPayload}: the checked list, or what is wrong with it. */
export type ParsedRevocationPayload = { ok: true; list: RevocationListContent } | { ok: false; problem: string };

const decodeLarge = decodeNative ?? base64urlDecode;
const isTime = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/**
 * Checks the fields of a decoded RVL1 payload and reads its two entry tables into lookup tables
 * (rule 3 of docs/rvl1.md): `v` is 1, `kid` and `product` are strings, `seq` a positive integer,
 * `issuedAt` a non-negative integer, `licenses` and `activations` strict base64url of well-formed
 * tables. Run it after the signature has been verified; any failure is `{ ok: false, problem }`
 * (the outcome `malformed`); it never throws. A list of 100,000 entries is read in a few
 * milliseconds: the tables are read straight into typed arrays, with no object per entry.
 *
 * @example
 * ```ts
 * const decoded = decodeRevocationList(text);
 * const parsed = decoded.ok ? parseRevocationPayload(decoded.payload) : { ok: false, problem: 'not RVL1' };
 * if (parsed.ok) console.log(parsed.list.seq, parsed.list.licenseCount, parsed.list.activationCount);
 * ```
 */
export function parseRevocationPayload(payload: Record<string, unknown>): ParsedRevocationPayload {
  if (typeof payload !== 'object' || payload === null) return { ok: false, problem: 'payload must be an object' };
  const { v, kid, product, seq, issuedAt, licenses, activations } = payload;
  if (v !== 1) return { ok: false, problem: 'v must be 1' };
  if (typeof kid !== 'string') return { ok: false, problem: 'kid must be a string' };
  if (typeof product !== 'string') return { ok: false, problem: 'product must be a string' };
  if (!Number.isSafeInteger(seq) || (seq as number) < 1) return { ok: false, problem: 'seq must be a positive integer' };
  if (!isTime(issuedAt)) return { ok: false, problem: 'issuedAt must be a non-negative integer' };
  const licenseBytes = typeof licenses === 'string' ? decodeLarge(licenses) : undefined;
  if (licenseBytes === undefined) return { ok: false, problem: 'licenses must be a base64url string' };
  const activationBytes = typeof activations === 'string' ? decodeLarge(activations) : undefined;
  if (activationBytes === undefined) return { ok: false, problem: 'activations must be a base64url string' };
  const licenseIndex = readEntryTable(licenseBytes, false);
  if (typeof licenseIndex === 'string') return { ok: false, problem: `licenses: ${licenseIndex}` };
  const activationIndex = readEntryTable(activationBytes, true);
  if (typeof activationIndex === 'string') return { ok: false, problem: `activations: ${activationIndex}` };
  return {
    ok: true,
    list: {
      v: 1,
      kid,
      product,
      seq: seq as number,
      issuedAt,
      licenseCount: licenseIndex.count,
      activationCount: activationIndex.count,
      index: { licenses: licenseIndex, activations: activationIndex },
    },
  };
}
