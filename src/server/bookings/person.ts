/**
 * What each kind of booking holds about one person (an e-mail address), as an erasure previews
 * and deletes it (bookings/kinds.ts, records/erasure.ts). Its own file, importing only the
 * database's type, so that the stores which answer it import no feature above them.
 */
import type { Queryable } from '../platform/db';

export interface PersonBooking {
  id: string;
  starts_at: Date;
  /** Still to come, and neither cancelled nor ended (a place or waitlist entry still live). */
  upcoming: boolean;
}

export interface PersonRecords {
  /** A person's records of this kind, locked for the rest of the transaction when `lock`... */
  of(db: Queryable, address: string, lock: boolean): Promise<PersonBooking[]>;
  /** ...and deleted by id (ids of other kinds among them match nothing). */
  erase(db: Queryable, ids: string[]): Promise<void>;
}
