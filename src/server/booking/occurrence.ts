import type { Interval } from '../../shared/booking/intervals';

/** One time an event of the busy feed takes place: its span, and the event it comes from. */
export interface Occurrence {
  span: Interval;
  event: Record<string, unknown>;
}
