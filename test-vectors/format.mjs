// Checks that a parsed JSON document is a `crt1-test-vectors-v1` vector file. Plain JavaScript so the
// conformance runner (scripts/conformance.mjs) and the tests share it.

const OUTCOMES = ['valid', 'malformed', 'invalid_signature', 'wrong_product', 'wrong_machine', 'expired', 'not_usable', 'version_not_covered', 'clock_tampered'];

const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
const isStringMap = (value) => isObject(value) && Object.values(value).every((v) => typeof v === 'string');

/**
 * @param {unknown} doc the parsed JSON
 * @returns {{ ok: true, file: any } | { ok: false, problems: string[] }}
 */
export function checkVectorFile(doc) {
  const problems = [];
  const need = (condition, message) => {
    if (!condition) problems.push(message);
  };
  if (!isObject(doc)) return { ok: false, problems: ['the document is not a JSON object'] };
  need(doc.format === 'crt1-test-vectors-v1', `"format" must be "crt1-test-vectors-v1", got ${JSON.stringify(doc.format)}`);
  need(isStringMap(doc.publicKeys) && Object.keys(doc.publicKeys).length > 0, '"publicKeys" must be an object of kid → base64url public key');
  need(doc.privateKeys === undefined || isStringMap(doc.privateKeys), '"privateKeys" must be an object of kid → base64url seed');
  need(typeof doc.product === 'string', '"product" must be a string');
  need(typeof doc.fingerprint === 'string', '"fingerprint" must be a string');
  if (!Array.isArray(doc.cases) || doc.cases.length === 0) {
    problems.push('"cases" must be a non-empty array');
  } else {
    doc.cases.forEach((c, i) => {
      const at = `cases[${i}]`;
      if (!isObject(c)) return problems.push(`${at} must be an object`);
      need(typeof c.name === 'string', `${at}.name must be a string`);
      need('certificate' in c, `${at}.certificate is missing`);
      need(Number.isFinite(c.now), `${at}.now must be a number (Unix seconds)`);
      need(Number.isInteger(c.appMajor) && c.appMajor >= 0, `${at}.appMajor must be a non-negative integer`);
      // Absent is read as null (no stored value), so files that only give it for the rollback case fit.
      need(c.highestIssuedAt == null || Number.isFinite(c.highestIssuedAt), `${at}.highestIssuedAt must be a number or null`);
      need(OUTCOMES.includes(c.expected), `${at}.expected must be one of ${OUTCOMES.join(', ')}`);
      need(c.product === undefined || typeof c.product === 'string', `${at}.product must be a string when present`);
      need(c.fingerprint === undefined || typeof c.fingerprint === 'string', `${at}.fingerprint must be a string when present`);
    });
  }
  if (doc.keyNormalization !== undefined) {
    if (!Array.isArray(doc.keyNormalization)) problems.push('"keyNormalization" must be an array');
    else
      doc.keyNormalization.forEach((k, i) => {
        const ok = isObject(k) && typeof k.input === 'string' && typeof k.normalized === 'string' && typeof k.sha256 === 'string';
        need(ok, `keyNormalization[${i}] must be { input, normalized, sha256 } strings`);
      });
  }
  return problems.length === 0 ? { ok: true, file: doc } : { ok: false, problems };
}

const LIST_OUTCOMES = ['valid', 'malformed', 'invalid_signature', 'wrong_product', 'older_seq'];
const CERTIFICATE_OUTCOMES = [...OUTCOMES.slice(0, 5), 'revoked', ...OUTCOMES.slice(5)];
const isCount = (value) => Number.isInteger(value) && value >= 0;

/**
 * Checks that a parsed JSON document is an `rvl1-test-vectors-v1` vector file (test-vectors/README.md).
 * @param {unknown} doc the parsed JSON
 * @returns {{ ok: true, file: any } | { ok: false, problems: string[] }}
 */
export function checkRevocationVectorFile(doc) {
  const problems = [];
  const need = (condition, message) => {
    if (!condition) problems.push(message);
  };
  if (!isObject(doc)) return { ok: false, problems: ['the document is not a JSON object'] };
  need(doc.format === 'rvl1-test-vectors-v1', `"format" must be "rvl1-test-vectors-v1", got ${JSON.stringify(doc.format)}`);
  need(isStringMap(doc.publicKeys) && Object.keys(doc.publicKeys).length > 0, '"publicKeys" must be an object of kid → base64url public key');
  need(doc.privateKeys === undefined || isStringMap(doc.privateKeys), '"privateKeys" must be an object of kid → base64url seed');
  need(typeof doc.product === 'string', '"product" must be a string');
  need(typeof doc.fingerprint === 'string', '"fingerprint" must be a string');
  const each = (key, check) => {
    if (!Array.isArray(doc[key]) || doc[key].length === 0) problems.push(`"${key}" must be a non-empty array`);
    else doc[key].forEach((c, i) => (isObject(c) ? check(c, `${key}[${i}]`) : problems.push(`${key}[${i}] must be an object`)));
  };
  each('lists', (c, at) => {
    need(typeof c.name === 'string', `${at}.name must be a string`);
    need('list' in c, `${at}.list is missing`);
    need(c.heldSeq == null || Number.isInteger(c.heldSeq), `${at}.heldSeq must be an integer or null`);
    need(LIST_OUTCOMES.includes(c.expected), `${at}.expected must be one of ${LIST_OUTCOMES.join(', ')}`);
    for (const field of ['seq', 'licenseCount', 'activationCount']) need(c[field] === undefined || isCount(c[field]), `${at}.${field} must be a non-negative integer when present`);
    need(c.product === undefined || typeof c.product === 'string', `${at}.product must be a string when present`);
  });
  each('certificates', (c, at) => {
    need(typeof c.name === 'string', `${at}.name must be a string`);
    need(c.list === null || typeof c.list === 'string', `${at}.list must be a list text or null`);
    need('certificate' in c, `${at}.certificate is missing`);
    need(Number.isFinite(c.now), `${at}.now must be a number (Unix seconds)`);
    need(Number.isInteger(c.appMajor) && c.appMajor >= 0, `${at}.appMajor must be a non-negative integer`);
    need(c.highestIssuedAt == null || Number.isFinite(c.highestIssuedAt), `${at}.highestIssuedAt must be a number or null`);
    need(CERTIFICATE_OUTCOMES.includes(c.expected), `${at}.expected must be one of ${CERTIFICATE_OUTCOMES.join(', ')}`);
    need(c.fingerprint === undefined || typeof c.fingerprint === 'string', `${at}.fingerprint must be a string when present`);
  });
  return problems.length === 0 ? { ok: true, file: doc } : { ok: false, problems };
}
