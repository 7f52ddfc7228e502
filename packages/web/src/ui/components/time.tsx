const formatter = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

/** An API timestamp in the browser's locale; the exact UTC instant on hover and for machines. */
export function DateTime({ value, empty = '—', date = false }: { value: string | null | undefined; empty?: string; date?: boolean }) {
  if (!value) return <span>{empty}</span>;
  const when = new Date(value);
  if (Number.isNaN(when.getTime())) return <span>{value}</span>;
  const utc = `${when.toISOString().replace('.000Z', 'Z')} (UTC)`;
  return (
    <time dateTime={value} title={utc}>
      {(date ? dateOnly : formatter).format(when)}
    </time>
  );
}
