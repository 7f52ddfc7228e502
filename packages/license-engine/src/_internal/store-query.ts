/** Query helpers of the memory store: equality filters, `q` search and opaque cursors. */

/** True when every defined field of `where` equals the record's field. */
export function matchesWhere(row: Record<string, unknown>, where: object): boolean {
  for (const [field, value] of Object.entries(where)) {
    if (value === undefined) continue;
    if (row[field] !== value) return false;
  }
  return true;
}

/** Case-insensitive substring match of `text` against any of `fields`. */
export function matchesSearch(row: Record<string, unknown>, search: { text: string; fields: readonly string[] }): boolean {
  const needle = search.text.toLowerCase();
  return search.fields.some((field) => {
    const value = row[field];
    return typeof value === 'string' && value.toLowerCase().includes(needle);
  });
}

/** The cursor is the base64url of the last returned ID: opaque to callers, stable under inserts. */
export function encodeCursor(id: string): string {
  return Buffer.from(id, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): string {
  return Buffer.from(cursor, 'base64url').toString('utf8');
}
