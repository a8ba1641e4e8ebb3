/**
 * The calendar invitation a visitor (and the studio) gets with each consultation mail, and its
 * cancellation: ics-write.ts writes them, as every kind's, under the UID `bookingUid` makes.
 */
import type { ConsultationPlace } from '../../shared/booking/place';
import type { CalendarEvent } from '../platform/mail';
import { bookingCalendar, bookingUid } from './ics-write';

export interface InviteBooking {
  /** The booking's id: the UID is made from it, so it never changes. */
  id: string;
  /** Raised before every message about this booking; a cancellation's is above the last invite's. */
  sequence: number;
  start: Date;
  end: Date;
  visitor: { name: string; email: string };
}

export interface InviteContext {
  studio: { name: string; email: string; instructor: string; host: string };
  place: ConsultationPlace;
  /** The page where the visitor changes or cancels the booking (its token in the link). */
  manageUrl: string;
  /** DTSTAMP: when this message is written, from the caller's clock. */
  now: Date;
}

/** What nodemailer's `icalEvent` message option takes (the outbox's mails carry it as is). */
export type CalendarAttachment = CalendarEvent;

export function invitation(booking: InviteBooking, context: InviteContext): CalendarAttachment {
  return write('REQUEST', booking, context);
}

export function cancellation(booking: InviteBooking, context: InviteContext): CalendarAttachment {
  return write('CANCEL', booking, context);
}

function write(method: 'REQUEST' | 'CANCEL', booking: InviteBooking, context: InviteContext) {
  const { studio, place, manageUrl } = context;
  const minutes = Math.round((booking.end.getTime() - booking.start.getTime()) / 60_000);
  const where = place.kind === 'studio' ? place.address : place.link;
  return bookingCalendar(method, {
    uid: bookingUid(booking.id, studio.host),
    sequence: booking.sequence,
    start: booking.start,
    end: booking.end,
    summary: `Complimentary consultation with ${studio.instructor}`,
    description:
      method === 'CANCEL'
        ? `This consultation at ${studio.name} was cancelled.`
        : `Your complimentary ${minutes}-minute consultation with ${studio.instructor} at ${studio.name}.\n\n${place.label}: ${where}\n\nTo change or cancel it: ${manageUrl}`,
    location: where,
    url: manageUrl,
    studio,
    attendee: booking.visitor,
    now: context.now,
    product: 'Consultations',
  });
}
