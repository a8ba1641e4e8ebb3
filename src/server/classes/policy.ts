/**
 * What a participant may do with their place, and the words that say so: the studio's one
 * cancellation policy (content/booking.yaml, read by src/server/booking/policy.ts), shown before
 * booking, in the confirmation, in the invite's description, and checked by the manage link's
 * POST. A place in a class is cancelled, never moved: to change class, cancel and book another.
 */
import { sessionPolicy, withinPolicy } from '../booking/policy';

export interface PlacePolicy {
  /** Whether the place can still be cancelled from its link at `at`. */
  canCancel(start: Date, at: Date): boolean;
  /** The policy in her words. */
  words: string;
}

export function placePolicy(): PlacePolicy {
  const { hours } = sessionPolicy();
  return {
    canCancel: (start, at) => withinPolicy(start, at, hours),
    words: hours.cancellationPolicy,
  };
}
