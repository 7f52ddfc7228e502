import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base64urlDecode, base64urlEncode } from '@svc-licensing/cert-format';

describe('base64url without padding', () => {
  it('encodes exactly like Node base64url and decodes back', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const text = base64urlEncode(bytes);
        expect(text).toBe(Buffer.from(bytes).toString('base64url'));
        expect(base64urlDecode(text)).toEqual(bytes);
      }),
    );
  });

  it('rejects padding, standard-alphabet characters, whitespace and impossible lengths', () => {
    expect(base64urlDecode('-_8=')).toBeUndefined();
    expect(base64urlDecode('+/8')).toBeUndefined();
    expect(base64urlDecode('AA AA')).toBeUndefined();
    expect(base64urlDecode('AAAAA')).toBeUndefined();
    expect(base64urlDecode('é')).toBeUndefined();
  });

  it('rejects a last character with non-zero unused bits, so each byte string has one text', () => {
    expect(base64urlDecode('AA')).toEqual(new Uint8Array([0]));
    expect(base64urlDecode('AB')).toBeUndefined();
    expect(base64urlDecode('AAE')).toEqual(new Uint8Array([0, 1]));
    expect(base64urlDecode('AAF')).toBeUndefined();
  });

  it('decodes the empty string to no bytes', () => {
    expect(base64urlDecode('')).toEqual(new Uint8Array(0));
  });
});
