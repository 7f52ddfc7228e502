import type { ComponentChildren } from 'preact';

export interface Column<T> {
  /** Header text. */
  label: string;
  cell: (row: T) => ComponentChildren;
  /** A narrow column kept on one line. */
  nowrap?: boolean;
  /** On a narrow screen, the label above the value (which needs the whole width: an ID). */
  stack?: boolean;
}

export interface TableProps<T> {
  caption: string;
  /** Shown above the table only to screen readers when true. */
  hideCaption?: boolean;
  columns: readonly Column<T>[];
  rows: readonly T[] | null;
  rowKey: (row: T) => string;
  empty: ComponentChildren;
}

/**
 * A data table with a caption and column headers (read cell by cell by screen readers). On a
 * narrow screen each row becomes a card whose cells carry their header as a label.
 */
export function Table<T>({ caption, hideCaption = false, columns, rows, rowKey, empty }: TableProps<T>) {
  if (rows !== null && rows.length === 0) return <p class="empty">{empty}</p>;
  // While loading, one line and no header: column widths depend on the rows, so a header drawn
  // before them would move when they arrive.
  if (rows === null) return <p class="loading" role="status">Loading…</p>;
  return (
    <div class="table-wrap">
      <table class="table">
        <caption class={hideCaption ? 'sr-only' : undefined}>{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" key={c.label}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((c) => (
                <td key={c.label} data-label={c.label} class={[c.nowrap ? 'nowrap' : '', c.stack ? 'stack' : ''].filter(Boolean).join(' ') || undefined}>
                  <div class="cell">{c.cell(row)}</div>
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
