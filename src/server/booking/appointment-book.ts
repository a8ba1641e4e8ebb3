/**
 * The steps a consultation (book.ts) and a session (session-book.ts) are booked by alike: what a
 * stored one answers with, and the repeat check, which answers a submission id already booked
 * from the one read of its row.
 */
import { failed, ok, type Result } from '../../shared/result';
import type { Problem } from '../request/responses';
import { otherRequest, sameRequest, type Received } from '../request/steps';
import type { Appointment } from './appointments';

/**
 * An appointment as its answer tells it: the one just stored (its row as stored, its token made
 * here, its mails to send now), or the one a repeated submission id names, as its row was read.
 */
export type AppointmentBooked<Booked extends Appointment> =
  | { repeat: false; booking: Booked; token: string; queued: string[] }
  | { repeat: true; booking: Booked };

/** A repeat's answer: its booking, or 409 when it was sent with other details. */
export function repeatOf<Booked extends Appointment>(
  earlier: Booked,
  received: Received,
): Result<AppointmentBooked<Booked>, Problem> {
  if (!sameRequest(earlier.requestSha256, received)) return failed(otherRequest());
  return ok({ repeat: true, booking: earlier });
}

/**
 * A submission id already booked (a retry, a double click, Back and Send again): its booking,
 * from the one read of its row (`bySubmission`), or 409 when it was sent with other details;
 * `undefined` for a new submission. It skips the checks, which its own booking would fail (the
 * time is its own).
 */
export async function findRepeatOf<Booked extends Appointment>(
  received: Received,
  bySubmission: (submissionId: string) => Promise<Booked | undefined>,
): Promise<Result<AppointmentBooked<Booked> | undefined, Problem>> {
  const earlier = await bySubmission(received.submissionId);
  return earlier ? repeatOf(earlier, received) : ok(undefined);
}
