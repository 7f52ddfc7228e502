// Runs the cases of an rvl1-test-vectors-v1 file through a verifier module (anything exporting
// verifyRevocationList and verifyCertificate with @svc-licensing/verifier's signatures). Plain
// JavaScript, so the conformance runner, the Node tests and the Chromium page share one reading of
// the format. Each answer is [case name, what the verifier gave, what the case expects].

/** The outcome of one list case: the verification outcome, `older_seq` when below `heldSeq`. */
export async function revocationListOutcome(verifier, file, c, backend = 'auto') {
  const result = await verifier.verifyRevocationList(c.list, { publicKeys: file.publicKeys, product: c.product ?? file.product, backend });
  if (result.outcome !== 'valid') return result.outcome;
  const { seq, licenseCount, activationCount } = result.list;
  if (c.heldSeq != null && seq < c.heldSeq) return 'older_seq';
  const held = { seq, licenseCount, activationCount };
  for (const field of ['seq', 'licenseCount', 'activationCount']) {
    if (c[field] !== undefined && c[field] !== held[field]) return `valid with ${field} ${held[field]}, not ${c[field]}`;
  }
  return 'valid';
}

/** The outcome of one certificate case, checked against its list (verified first) or none. */
export async function revokedCertificateOutcome(verifier, file, c, backend = 'auto') {
  let revocations = null;
  if (c.list !== null) {
    const checked = await verifier.verifyRevocationList(c.list, { publicKeys: file.publicKeys, product: file.product, backend });
    if (checked.outcome !== 'valid') return `its list is ${checked.outcome}`;
    revocations = checked.list;
  }
  const result = await verifier.verifyCertificate(c.certificate, {
    publicKeys: file.publicKeys,
    product: file.product,
    fingerprint: c.fingerprint ?? file.fingerprint,
    appMajor: c.appMajor,
    now: c.now,
    highestIssuedAt: c.highestIssuedAt ?? null,
    revocations,
    backend,
  });
  return result.outcome;
}

/** Every case of the file: `[name, got, expected]`, lists first. */
export async function runRevocationVectors(verifier, file, backend = 'auto') {
  const rows = [];
  for (const c of file.lists) rows.push([`list: ${c.name}`, await revocationListOutcome(verifier, file, c, backend), c.expected]);
  for (const c of file.certificates) rows.push([`certificate: ${c.name}`, await revokedCertificateOutcome(verifier, file, c, backend), c.expected]);
  return rows;
}
