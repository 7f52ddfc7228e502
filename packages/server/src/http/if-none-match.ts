/**
 * Whether an `If-None-Match` field value matches the current representation's `etag` (RFC 9110,
 * 13.1.2): `*`, or a comma-separated list of entity tags of which one equals it by the weak
 * comparison (`W/"x"` matches `"x"`). A GET or HEAD it matches answers `304`. Several header lines
 * arrive joined by commas, which the list form reads the same way. Null (no header) matches nothing.
 *
 * @example
 * ```ts
 * ifNoneMatchMatches('"rvl1-6", W/"rvl1-7"', '"rvl1-7"'); // true
 * ifNoneMatchMatches('*', '"rvl1-7"'); // true
 * ```
 */
export function ifNoneMatchMatches(field: string | null, etag: string): boolean {
  if (field === null) return false;
  if (field.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  // An entity tag is an optional W/ and a quoted string without quotes inside, so a comma within one is not a separator.
  for (const [tag] of field.matchAll(/(?:W\/)?"[^"]*"/g)) if (tag.replace(/^W\//, '') === opaque) return true;
  return false;
}
