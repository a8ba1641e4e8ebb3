/**
 * What a participant may do with their place, and the words that say so: shown before booking,
 * in the confirmation, in the invite's description, and checked by the manage link's POST.
 *
 * Until the studio's cancellation policy is in content (content/booking.yaml, read by
 * src/server/booking/policy.ts), a place can be cancelled from its link until the class's
 * cutoff, when the waitlist closes and the class is confirmed or cancelled.
 */
import { cutoffOf } from './occurrences';
import type { ClassSettings } from './settings';

export interface PlacePolicy {
  /** Whether the place can still be cancelled from its link at `at`. */
  canCancel(start: Date, at: Date): boolean;
  /** The policy in a sentence. */
  words: string;
}

export function placePolicy(settings: ClassSettings): PlacePolicy {
  const hours = settings.timetable.cutoffHours;
  return {
    canCancel: (start, at) => at < cutoffOf(start, settings),
    words: `You can cancel your place free of charge up to ${hours} ${hours === 1 ? 'hour' : 'hours'} before the class, from the link in your confirmation.`,
  };
}
