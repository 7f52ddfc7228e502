import { createHash, createPrivateKey, createPublicKey, verify as nodeVerify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CertFormatError,
  decodeCertificate,
  decodeRevocationList,
  encodeRevocationList,
  machineFingerprint,
  matchRevocation,
  parseRevocationPayload,
  type RevocationListInput,
} from '@svc-licensing/cert-format';
import { seedToPkcs8, signRevocationList } from '@svc-licensing/cert-format/sign';

const DAY = 86_400;
const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z, a UTC midnight
const seed = new Uint8Array(32).fill(9);
const FP_A = machineFingerprint('prd_1', 'machine-a');
const FP_B = machineFingerprint('prd_1', 'machine-b');

const input = (over: Partial<RevocationListInput> = {}): RevocationListInput => ({
  kid: 'k1',
  product: 'prd_1',
  seq: 3,
  issuedAt: T0 + 3600,
  licenses: [{ license: 'lic_revoked', until: T0 + 7 * DAY }],
  activations: [{ license: 'lic_live', fingerprint: FP_A, freedAt: T0, until: T0 + 14 * DAY }],
  ...over,
});

function parse(text: string) {
  const decoded = decodeRevocationList(text);
  if (!decoded.ok) throw new Error('decode failed');
  const parsed = parseRevocationPayload(decoded.payload);
  if (!parsed.ok) throw new Error(parsed.problem);
  return { decoded, list: parsed.list };
}

// An independent writer of the tables as docs/rvl1.md describes them (node:crypto, Buffer).
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest();
function group(until: number, entries: Buffer[]): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(until, 0);
  header.writeUInt32BE(entries.length, 4);
  return Buffer.concat([header, ...entries.sort(Buffer.compare)]);
}
const licenseEntry = (license: string) => sha(`rvl1:license:${license}`).subarray(0, 8);
function activationEntry(license: string, fingerprint: string, freedAt: number, until: number): Buffer {
  const entry = Buffer.from(sha(`rvl1:activation:${license}:${fingerprint}`).subarray(0, 10));
  const age = until - freedAt;
  entry[6] = (entry[6]! & 0xfe) | (age >>> 24);
  entry.writeUIntBE(age & 0xffffff, 7, 3);
  return entry;
}
const withPayload = (text: string, change: (payload: Record<string, unknown>) => Record<string, unknown>) => {
  const decoded = decodeRevocationList(text);
  if (!decoded.ok) throw new Error('decode failed');
  return parseRevocationPayload(change({ ...decoded.payload }));
};

describe('RVL1 encoding', () => {
  it('writes the payload fields in order and the tables exactly as docs/rvl1.md lays them out', () => {
    const text = encodeRevocationList(input());
    const json = JSON.parse(Buffer.from(text.slice('RVL1.'.length), 'base64url').toString('utf8'));
    expect(Object.keys(json)).toEqual(['v', 'kid', 'product', 'seq', 'issuedAt', 'licenses', 'activations']);
    expect(json).toMatchObject({ v: 1, kid: 'k1', product: 'prd_1', seq: 3, issuedAt: T0 + 3600 });
    expect(json.licenses).toBe(group(T0 + 7 * DAY, [licenseEntry('lic_revoked')]).toString('base64url'));
    expect(json.activations).toBe(group(T0 + 14 * DAY, [activationEntry('lic_live', FP_A, T0, T0 + 14 * DAY)]).toString('base64url'));
  });

  it('hashes license IDs that are not ASCII as UTF-8, like ASCII ones', () => {
    const license = 'lic_Zoë-東京-🚀';
    const text = encodeRevocationList(input({ licenses: [{ license, until: T0 + DAY }], activations: [{ license, fingerprint: FP_B, freedAt: T0, until: T0 + DAY }] }));
    const json = JSON.parse(Buffer.from(text.slice(5), 'base64url').toString('utf8'));
    expect(json.licenses).toBe(group(T0 + DAY, [licenseEntry(license)]).toString('base64url'));
    expect(json.activations).toBe(group(T0 + DAY, [activationEntry(license, FP_B, T0, T0 + DAY)]).toString('base64url'));
    const { list } = parse(`${text}.x`);
    expect(matchRevocation(list, { license, fingerprint: FP_A, issuedAt: T0 }, T0)).toBe('license');
    expect(matchRevocation(list, { license: 'lic_Zoe-東京-🚀', fingerprint: FP_B, issuedAt: T0 }, T0)).toBeNull();
  });

  it('rounds each until up to a whole UTC day, groups entries by it (ascending) and sorts keys in a group', () => {
    const licenses = ['lic_a', 'lic_b', 'lic_c', 'lic_d'].map((license, i) => ({ license, until: T0 + (i < 2 ? 2 : 5) * DAY - 100 * i }));
    const text = encodeRevocationList(input({ licenses, activations: [] }));
    const json = JSON.parse(Buffer.from(text.slice(5), 'base64url').toString('utf8'));
    const expected = Buffer.concat([group(T0 + 2 * DAY, [licenseEntry('lic_a'), licenseEntry('lic_b')]), group(T0 + 5 * DAY, [licenseEntry('lic_c'), licenseEntry('lic_d')])]);
    expect(json.licenses).toBe(expected.toString('base64url'));
    expect(json.activations).toBe('');
  });

  it('gives the same text for the same entries in any order, merging repeated entries (latest freedAt and until)', () => {
    const a = input({
      activations: [
        { license: 'lic_live', fingerprint: FP_A, freedAt: T0 - DAY, until: T0 + 3 * DAY },
        { license: 'lic_live', fingerprint: FP_B, freedAt: T0, until: T0 + 9 * DAY },
        { license: 'lic_live', fingerprint: FP_A, freedAt: T0, until: T0 + 14 * DAY },
      ],
      licenses: [{ license: 'lic_x', until: T0 + 2 * DAY }, { license: 'lic_revoked', until: T0 + 7 * DAY }, { license: 'lic_x', until: T0 + 4 * DAY }],
    });
    const b = { ...a, licenses: [...a.licenses].reverse(), activations: [...a.activations].reverse() };
    expect(encodeRevocationList(b)).toBe(encodeRevocationList(a));
    const { list } = parse(`${encodeRevocationList(a)}.sig`);
    expect([list.licenseCount, list.activationCount]).toEqual([2, 2]);
    // The merged lic_x entry lasts until the later day; FP_A keeps the later freeing.
    expect(matchRevocation(list, { license: 'lic_x', fingerprint: FP_A, issuedAt: T0 }, T0 + 4 * DAY - 1)).toBe('license');
    expect(matchRevocation(list, { license: 'lic_live', fingerprint: FP_A, issuedAt: T0 }, T0 + 13 * DAY)).toBe('activation');
  });

  it('leaves out entries whose rounded until is not after issuedAt (they block nothing any more)', () => {
    const text = encodeRevocationList(
      input({
        issuedAt: T0 + 2 * DAY,
        licenses: [{ license: 'lic_gone', until: T0 + 2 * DAY }, { license: 'lic_stays', until: T0 + 2 * DAY + 1 }],
        activations: [{ license: 'lic_live', fingerprint: FP_A, freedAt: T0, until: T0 + DAY + 5 }],
      }),
    );
    const { list } = parse(`${text}.x`);
    expect([list.licenseCount, list.activationCount]).toEqual([1, 0]);
    expect(matchRevocation(list, { license: 'lic_stays', fingerprint: FP_A, issuedAt: T0 }, T0 + 3 * DAY - 1)).toBe('license');
  });

  it('costs 8 bytes per license entry and 10 per activation entry, plus 8 per day group, before base64url', () => {
    const licenses = Array.from({ length: 300 }, (_, i) => ({ license: `lic_${i}`, until: T0 + (1 + (i % 3)) * DAY }));
    const activations = Array.from({ length: 200 }, (_, i) => ({ license: `lic_${i}`, fingerprint: FP_A, freedAt: T0, until: T0 + (1 + (i % 2)) * DAY }));
    const json = JSON.parse(Buffer.from(encodeRevocationList(input({ issuedAt: T0, licenses, activations })).slice(5), 'base64url').toString('utf8'));
    expect(Buffer.from(json.licenses, 'base64url').length).toBe(300 * 8 + 3 * 8);
    expect(Buffer.from(json.activations, 'base64url').length).toBe(200 * 10 + 2 * 8);
  });

  it('throws invalid_argument for an input that breaks the format', () => {
    const bad: [string, Partial<RevocationListInput>][] = [
      ['seq 0', { seq: 0 }],
      ['seq 1.5', { seq: 1.5 }],
      ['empty kid', { kid: '' }],
      ['issuedAt negative', { issuedAt: -1 }],
      ['license not a string', { licenses: [{ license: 1 as never, until: T0 + DAY }] }],
      ['until not an integer', { licenses: [{ license: 'lic_x', until: T0 + 0.5 }] }],
      ['uppercase fingerprint', { activations: [{ license: 'lic_x', fingerprint: FP_A.toUpperCase(), freedAt: T0, until: T0 + DAY }] }],
      ['freedAt after issuedAt', { activations: [{ license: 'lic_x', fingerprint: FP_A, freedAt: T0 + 2 * 3600, until: T0 + 2 * DAY }] }],
      ['until 389 days after freedAt', { activations: [{ license: 'lic_x', fingerprint: FP_A, freedAt: T0, until: T0 + 389 * DAY }] }],
      ['licenses not an array', { licenses: {} as never }],
    ];
    for (const [name, over] of bad) {
      let error: unknown;
      try {
        encodeRevocationList(input(over));
      } catch (caught) {
        error = caught;
      }
      expect(CertFormatError.is(error) && error.code, name).toBe('invalid_argument');
    }
    // 388 days after the freeing still fits (offlineDays is at most 365).
    expect(() => encodeRevocationList(input({ activations: [{ license: 'lic_x', fingerprint: FP_A, freedAt: T0, until: T0 + 388 * DAY }] }))).not.toThrow();
  });
});

describe('RVL1 signing and decoding', () => {
  it('signs the exact RVL1.<payload> text with Ed25519; the CRT1 decoder refuses the list', () => {
    const text = signRevocationList(input(), seed);
    const [prefix, payload, signature] = text.split('.');
    expect(prefix).toBe('RVL1');
    expect(`${prefix}.${payload}`).toBe(encodeRevocationList(input()));
    const publicKey = createPublicKey(createPrivateKey({ key: Buffer.from(seedToPkcs8(seed)), format: 'der', type: 'pkcs8' }));
    expect(nodeVerify(null, Buffer.from(`RVL1.${payload}`), publicKey, Buffer.from(signature!, 'base64url'))).toBe(true);
    expect(decodeCertificate(text)).toEqual({ ok: false });
    const { decoded } = parse(text);
    expect(decoded.kid).toBe('k1');
    expect(decoded.signingInput).toBe(`RVL1.${payload}`);
    expect(decoded.signature).toHaveLength(64);
  });

  it('decodeRevocationList refuses every text that is not three parts, RVL1, and a JSON object payload', () => {
    const text = signRevocationList(input(), seed);
    const [, payload, signature] = text.split('.');
    for (const bad of [undefined, 42, '', `RVL1.${payload}`, `${text}.x`, `rvl1.${payload}.${signature}`, `CRT1.${payload}.${signature}`, `RVL10.${payload}.${signature}`, ` ${text}`, `RVL1.${payload}=.${signature}`, `RVL1.${Buffer.from('[1]').toString('base64url')}.${signature}`, `RVL1.${Buffer.from([0x7b, 0xff, 0x7d]).toString('base64url')}.${signature}`]) {
      expect(decodeRevocationList(bad), String(bad)).toEqual({ ok: false });
    }
  });

  it('parseRevocationPayload names the problem of a payload with wrong field types or broken tables', () => {
    const text = signRevocationList(input(), seed);
    const licenses = group(T0 + 7 * DAY, [licenseEntry('lic_a')]);
    const cases: [string, (p: Record<string, unknown>) => Record<string, unknown>, string][] = [
      ['v 2', (p) => ({ ...p, v: 2 }), 'v must be 1'],
      ['kid number', (p) => ({ ...p, kid: 1 }), 'kid must be a string'],
      ['product missing', (p) => ({ ...p, product: undefined }), 'product must be a string'],
      ['seq 0', (p) => ({ ...p, seq: 0 }), 'seq must be a positive integer'],
      ['seq "3"', (p) => ({ ...p, seq: '3' }), 'seq must be a positive integer'],
      ['issuedAt 1.5', (p) => ({ ...p, issuedAt: 1.5 }), 'issuedAt must be a non-negative integer'],
      ['licenses missing', (p) => ({ ...p, licenses: undefined }), 'licenses must be a base64url string'],
      ['licenses padded', (p) => ({ ...p, licenses: `${licenses.toString('base64')}` }), 'licenses must be a base64url string'],
      ['activations array', (p) => ({ ...p, activations: [] }), 'activations must be a base64url string'],
      ['truncated header', (p) => ({ ...p, licenses: licenses.subarray(0, 6).toString('base64url') }), 'licenses: truncated group header'],
      ['truncated group', (p) => ({ ...p, licenses: licenses.subarray(0, 15).toString('base64url') }), 'licenses: truncated group'],
      ['until not a day', (p) => ({ ...p, licenses: group(T0 + 7 * DAY + 1, [licenseEntry('lic_a')]).toString('base64url') }), 'licenses: until 1767830401 is not a positive multiple of 86400'],
      ['empty group', (p) => ({ ...p, licenses: group(T0 + DAY, []).toString('base64url') }), 'licenses: empty group'],
      ['groups out of order', (p) => ({ ...p, licenses: Buffer.concat([group(T0 + 2 * DAY, [licenseEntry('lic_a')]), group(T0 + DAY, [licenseEntry('lic_b')])]).toString('base64url') }), 'licenses: groups are not in strictly ascending until order'],
      ['keys out of order', (p) => {
        const [x, y] = [licenseEntry('lic_a'), licenseEntry('lic_b')].sort(Buffer.compare);
        const header = group(T0 + DAY, [x!, y!]).subarray(0, 8);
        return { ...p, licenses: Buffer.concat([header, y!, x!]).toString('base64url') };
      }, 'licenses: keys are not in strictly ascending order'],
      ['key in two groups', (p) => ({ ...p, licenses: Buffer.concat([group(T0 + DAY, [licenseEntry('lic_a')]), group(T0 + 2 * DAY, [licenseEntry('lic_a')])]).toString('base64url') }), 'licenses: a key appears twice'],
      ['activation freed before 1970', (p) => ({ ...p, activations: group(DAY, [activationEntry('lic_a', FP_A, -1000, DAY)]).toString('base64url') }), 'activations: freedAt before 1970'],
    ];
    for (const [name, change, problem] of cases) expect(withPayload(text, change), name).toEqual({ ok: false, problem });
    // Extra payload fields are allowed (a later version may add some).
    expect(withPayload(text, (p) => ({ ...p, note: 'x' })).ok).toBe(true);
  });
});

describe('matchRevocation', () => {
  const { list } = parse(signRevocationList(input(), seed));

  it('names a certificate of a listed license, whatever its machine or issue time, until the entry drops out', () => {
    const subject = { license: 'lic_revoked', fingerprint: FP_B, issuedAt: T0 + 30 * DAY };
    expect(matchRevocation(list, subject, T0 + 7 * DAY - 1)).toBe('license');
    expect(matchRevocation(list, subject, T0 + 7 * DAY)).toBeNull();
    expect(matchRevocation(list, { ...subject, license: 'lic_other' }, T0)).toBeNull();
  });

  it('names a freed machine of a license only for certificates issued at or before the freeing', () => {
    const subject = { license: 'lic_live', fingerprint: FP_A, issuedAt: T0 - DAY };
    expect(matchRevocation(list, subject, T0 + 3600)).toBe('activation');
    expect(matchRevocation(list, { ...subject, issuedAt: T0 }, T0 + 3600)).toBe('activation');
    expect(matchRevocation(list, { ...subject, issuedAt: T0 + 1 }, T0 + 3600)).toBeNull();
    expect(matchRevocation(list, { ...subject, fingerprint: FP_B }, T0 + 3600)).toBeNull();
    expect(matchRevocation(list, { ...subject, license: 'lic_revoked2' }, T0 + 3600)).toBeNull();
    expect(matchRevocation(list, subject, T0 + 14 * DAY - 1)).toBe('activation');
    expect(matchRevocation(list, subject, T0 + 14 * DAY)).toBeNull();
  });

  it('finds every entry of a large list and no other license (hash tables with collisions in their slots)', () => {
    const licenses = Array.from({ length: 5000 }, (_, i) => ({ license: `lic_${i}`, until: T0 + (1 + (i % 30)) * DAY }));
    const activations = Array.from({ length: 5000 }, (_, i) => ({ license: `lic_m${i}`, fingerprint: FP_A, freedAt: T0 - i, until: T0 + 20 * DAY }));
    const big = parse(`${encodeRevocationList(input({ issuedAt: T0, licenses, activations }))}.x`).list;
    expect([big.licenseCount, big.activationCount]).toEqual([5000, 5000]);
    for (let i = 0; i < 5000; i++) {
      expect(matchRevocation(big, { license: `lic_${i}`, fingerprint: FP_B, issuedAt: T0 }, T0)).toBe('license');
      expect(matchRevocation(big, { license: `lic_m${i}`, fingerprint: FP_A, issuedAt: T0 - i }, T0)).toBe('activation');
      expect(matchRevocation(big, { license: `lic_m${i}`, fingerprint: FP_A, issuedAt: T0 - i + 1 }, T0)).toBeNull();
      expect(matchRevocation(big, { license: `lic_n${i}`, fingerprint: FP_A, issuedAt: T0 }, T0)).toBeNull();
    }
  });

  it('matches nothing in an empty list', () => {
    const empty = parse(signRevocationList(input({ licenses: [], activations: [] }), seed)).list;
    expect([empty.licenseCount, empty.activationCount]).toEqual([0, 0]);
    expect(matchRevocation(empty, { license: 'lic_revoked', fingerprint: FP_A, issuedAt: T0 }, T0)).toBeNull();
  });
});
