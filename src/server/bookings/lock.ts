/**
 * What the desk reads of a priced booking before it acts on it (bookings/kinds.ts). Its own file,
 * importing nothing, so that the stores which answer it import no feature above them.
 */
/** A booking as the desk acts on it, locked for the rest of the transaction. */
export interface DeskLock {
  payment: 'due' | 'held' | 'paid';
  /** Who recorded it paid: her address at the studio, `checkout` online. */
  paidBy: string | null;
  /** Cancelled, or a place not booked (offered to the waitlist). */
  gone: boolean;
  toCome: boolean;
}
