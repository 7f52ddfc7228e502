// Builds the published activation-request test vectors (test-vectors/activation-request.json)
// deterministically: fixed fields, fixed times. `generate.ts` writes the file.
import { encodeActivationRequest, type ActivationRequest } from '@svc-licensing/cert-format';
import { T0, TEST_FINGERPRINT, TEST_PRODUCT } from './fixtures.js';

export interface RequestVectorCase {
  name: string;
  /** The text as a customer would paste or upload it. */
  text: string;
  /** The parsed request, or null when a conforming parser must refuse the text. */
  expected: ActivationRequest | null;
}

export interface RequestVectorFile {
  format: 'svc-activation-request-vectors-v1';
  description: string;
  cases: RequestVectorCase[];
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const raw = (json: string) => `SVCREQ1.${b64(json)}`;

const minimal: ActivationRequest = { v: 1, product: TEST_PRODUCT, fingerprint: TEST_FINGERPRINT, appVersion: '2.4.1', createdAt: T0 };
const full: ActivationRequest = { ...minimal, name: 'Lab PC 7 — Zoë', platform: 'linux', key: 'ACME-2345A-BCDEF-GHJKM-NPQRS' };

export function buildRequestVectors(): RequestVectorFile {
  const valid = (name: string, request: ActivationRequest, text = encodeActivationRequest(request)): RequestVectorCase => ({ name, text, expected: request });
  const refused = (name: string, text: string): RequestVectorCase => ({ name, text, expected: null });
  const wrapped = encodeActivationRequest(full).replace(/(.{64})/g, '$1\r\n');
  return {
    format: 'svc-activation-request-vectors-v1',
    description:
      'Activation requests of air-gapped machines (format SVCREQ1). Each case gives a text and the request a conforming parser reads from it, or null when it must refuse it.',
    cases: [
      valid('minimal (no name, platform or key)', minimal),
      valid('with name, platform and license key (non-ASCII name)', full),
      valid('wrapped at 64 characters with CRLF and surrounded by blank lines', full, `\n\n${wrapped}\n\n`),
      valid('unknown extra field is ignored', minimal, raw(JSON.stringify({ ...minimal, comment: 'later addition' }))),
      refused('another version prefix', `SVCREQ2.${encodeActivationRequest(minimal).slice('SVCREQ1.'.length)}`),
      refused('v is not 1', raw(JSON.stringify({ ...minimal, v: 2 }))),
      refused('uppercase fingerprint', raw(JSON.stringify({ ...minimal, fingerprint: TEST_FINGERPRINT.toUpperCase() }))),
      refused('missing appVersion', raw(JSON.stringify({ v: 1, product: TEST_PRODUCT, fingerprint: TEST_FINGERPRINT, createdAt: T0 }))),
      refused('createdAt not an integer', raw(JSON.stringify({ ...minimal, createdAt: T0 + 0.5 }))),
      refused('empty key', raw(JSON.stringify({ ...minimal, key: '' }))),
      refused('truncated copy', encodeActivationRequest(full).slice(0, 40)),
      refused('payload is not JSON', raw('not json')),
      refused('payload is a JSON array', raw('[1]')),
      refused('padding is not accepted', `${encodeActivationRequest(minimal)}=`),
    ],
  };
}

export const serializeRequestVectors = (file: RequestVectorFile): string => `${JSON.stringify(file, null, 2)}\n`;
