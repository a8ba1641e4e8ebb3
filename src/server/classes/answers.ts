/**
 * How the class forms' functions answer: a refusal raised in the transaction in the visitor's
 * words, and a stored booking's answer (the place's page, where a post without script goes).
 */
import { CLASS_MANAGE_PAGE, CLASS_NOTICES } from '../../shared/classes/form';
import type { Problem } from '../request/responses';
import type { StoredAnswer } from '../request/pipeline';
import { ClassRefusal, loadSeat, seatBySubmission, seatToken } from './store';

const WORDS: Record<ClassRefusal['reason'], string> = {
  full: CLASS_NOTICES.full,
  already: CLASS_NOTICES.already,
  closed: CLASS_NOTICES.closed,
  price: CLASS_NOTICES.priceChanged,
  'not-full': CLASS_NOTICES.notFull,
  waiting: CLASS_NOTICES.alreadyWaiting,
  'waitlist-closed': CLASS_NOTICES.waitlistClosed,
};

/** A refusal the transaction raised (full, already booked, closed): 409 with its words. */
export function classConflict(error: unknown): Promise<Problem | undefined> {
  if (!(error instanceof ClassRefusal)) return Promise.resolve(undefined);
  return Promise.resolve({
    status: 409,
    error: WORDS[error.reason],
    details: { reason: error.reason },
  });
}

/** The page of the place a booking stored (or, for a repeat, the place its submission made). */
export async function placeLocation(
  ref: string | undefined,
  submissionId: string,
): Promise<string | undefined> {
  const seat = ref ? await loadSeat(ref) : await seatBySubmission(submissionId);
  if (!seat || seat.status !== 'booked') return undefined;
  return `${CLASS_MANAGE_PAGE}?token=${seatToken(seat)}&done=booked`;
}

export function classAnswer(location: string | undefined): StoredAnswer {
  return location
    ? { details: { booking: { manage: location.replace('&done=booked', '') } }, location }
    : {};
}
