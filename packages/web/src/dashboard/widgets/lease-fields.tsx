import { useState } from 'preact/hooks';
import { TextField } from '../../ui/components/field.js';
import type { PlanView } from '../../ui/types.js';
import { intOrNull } from '../format.js';

/** The lease fields of a floating plan as the form holds them (text of the number fields). */
export interface LeaseFieldsState {
  leaseSeconds: string;
  maxBorrowDays: string;
  maxBorrowedSeats: string;
}

/** The form state of a plan's lease fields: the plan's own values, or the API's defaults for a new plan. */
export function useLeaseFields(plan?: PlanView): [LeaseFieldsState, (next: LeaseFieldsState) => void] {
  return useState<LeaseFieldsState>({
    leaseSeconds: String(plan?.leaseSeconds ?? 900),
    maxBorrowDays: String(plan?.maxBorrowDays ?? 0),
    maxBorrowedSeats: plan?.maxBorrowedSeats == null ? '' : String(plan.maxBorrowedSeats),
  });
}

/** The request body fields of the lease settings (sent only for a floating plan: the API refuses them on a machine plan). */
export function leaseBody(state: LeaseFieldsState): { leaseSeconds: number; maxBorrowDays: number; maxBorrowedSeats: number | null } {
  return { leaseSeconds: Number(state.leaseSeconds), maxBorrowDays: Number(state.maxBorrowDays), maxBorrowedSeats: intOrNull(state.maxBorrowedSeats) };
}

/** How long a lease lasts, in words: `15 min`, `2 h`, `90 s`. */
export function leaseLength(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** A plan's seat mode in one line: `machine`, or `floating · 15 min lease · borrow up to 7 days`. */
export function seatSummary(plan: PlanView): string {
  if (plan.seatMode !== 'floating') return 'machine';
  const parts = ['floating', `${leaseLength(plan.leaseSeconds ?? 900)} lease`];
  const days = plan.maxBorrowDays ?? 0;
  if (days === 0) parts.push('no borrowing');
  else parts.push(`borrow up to ${days} day${days === 1 ? '' : 's'}${plan.maxBorrowedSeats === null ? '' : `, ${plan.maxBorrowedSeats} borrowed at most`}`);
  return parts.join(' · ');
}

/** The three lease fields of a floating plan (the contract's bounds as the inputs' limits). */
export function LeaseFields({ value, onValue }: { value: LeaseFieldsState; onValue: (next: LeaseFieldsState) => void }) {
  const set = (field: keyof LeaseFieldsState) => (v: string) => onValue({ ...value, [field]: v });
  return (
    <>
      <TextField label="Lease seconds" name="leaseSeconds" type="number" min={120} max={86400} required hint="120 to 86,400; a machine that stops calling frees its seat this long after its last call" value={value.leaseSeconds} onValue={set('leaseSeconds')} />
      <TextField label="Borrow days at most" name="maxBorrowDays" type="number" min={0} max={365} required hint="0: no borrowing; up to 365 days offline" value={value.maxBorrowDays} onValue={set('maxBorrowDays')} />
      <TextField label="Borrowed seats at most" name="maxBorrowedSeats" type="number" min={0} max={100000} hint="Empty: every seat may be borrowed" value={value.maxBorrowedSeats} onValue={set('maxBorrowedSeats')} />
    </>
  );
}
