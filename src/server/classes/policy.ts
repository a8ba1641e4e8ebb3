/**
 * What a participant may do with their place, and the words that say so: the classes' own
 * cancellation policy (content/classes.yaml), shown before booking, in the confirmation, in the
 * invite's description, and checked by the manage link's POST. A place in a class is cancelled,
 * never moved: to change class, cancel and book another.
 */
import { classSettings } from './settings';

export interface PlacePolicy {
  /** Whether the place can still be cancelled from its link at `at`. */
  canCancel(start: Date, at: Date): boolean;
  /** The policy in her words. */
  words: string;
  /** Up to how many hours before the class. */
  hoursBefore: number;
}

export function placePolicy(): PlacePolicy {
  const { timetable } = classSettings();
  return {
    canCancel: (start, at) =>
      start.getTime() - at.getTime() >= timetable.cancelHoursBefore * 3_600_000,
    words: timetable.cancellationPolicy,
    hoursBefore: timetable.cancelHoursBefore,
  };
}
