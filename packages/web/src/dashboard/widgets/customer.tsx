import { customerName, hasOwnName } from '../format.js';

/** An e-mail address that may wrap before its `@` (never inside a name or a domain label). */
export function Email({ value }: { value: string }) {
  const at = value.lastIndexOf('@');
  if (at <= 0) return <>{value}</>;
  return (
    <>
      {value.slice(0, at)}
      <wbr />
      {value.slice(at)}
    </>
  );
}

/**
 * A customer in a list or a fact: their name as a link, their e-mail under it when the name is
 * more than the e-mail (a customer created without a name is named by the e-mail, shown once).
 */
export function CustomerCell({ customer, to }: { customer: { name: string | null; email: string }; to: string }) {
  return (
    <>
      <a href={to}>
        <Email value={customerName(customer)} />
      </a>
      {hasOwnName(customer) ? (
        <div class="muted">
          <Email value={customer.email} />
        </div>
      ) : null}
    </>
  );
}
