/**
 * The calendar invitation a visitor gets with each booking mail, and its cancellation.
 *
 * What Gmail, Outlook and Apple Calendar need to add the event and later update or remove it
 * (RFC 5546, iTIP): the mail's text/calendar part carries `method=REQUEST` or `method=CANCEL`,
 * matching METHOD inside (nodemailer's `icalEvent: { method, content }` writes both, so this
 * returns exactly that object); every message about one booking has the same UID and ORGANIZER,
 * and a SEQUENCE higher than the last one sent (Outlook ignores an update or a cancellation that
 * is not newer); the mail comes from the ORGANIZER's address; a CANCEL lists the ATTENDEE again
 * and says STATUS:CANCELLED. Times are written in UTC, which every client converts to its
 * reader's zone (a TZID would need a VTIMEZONE, and ical-generator has no zone database).
 * The visitor chose the time, so they are already ACCEPTED and no reply is asked for.
 */
import ical, {
  ICalAttendeeRole,
  ICalAttendeeStatus,
  ICalCalendarMethod,
  ICalEventStatus,
} from 'ical-generator';
import type { ConsultationPlace } from '../../shared/booking/place';
import type { CalendarEvent } from '../platform/mail';
import { bookingUid, displayName, reminderAlarm, withFinalLineBreak } from './ics-write';

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
  if (!Number.isInteger(booking.sequence) || booking.sequence < 0) {
    throw new RangeError(`SEQUENCE must be a whole number from 0, not ${booking.sequence}`);
  }
  const { studio, place, manageUrl } = context;
  const cancelled = method === 'CANCEL';
  const minutes = Math.round((booking.end.getTime() - booking.start.getTime()) / 60_000);
  const where = place.kind === 'studio' ? place.address : place.link;
  const summary = `Complimentary consultation with ${studio.instructor}`;
  const calendar = ical({
    prodId: { company: studio.name, product: 'Consultations', language: 'EN' },
    method: cancelled ? ICalCalendarMethod.CANCEL : ICalCalendarMethod.REQUEST,
  });
  calendar.createEvent({
    id: bookingUid(booking.id, studio.host),
    sequence: booking.sequence,
    stamp: context.now,
    start: booking.start,
    end: booking.end,
    summary: cancelled ? `Cancelled: ${summary}` : summary,
    location: where,
    description: cancelled
      ? `This consultation at ${studio.name} was cancelled.`
      : `Your complimentary ${minutes}-minute consultation with ${studio.instructor} at ${studio.name}.\n\n${place.label}: ${where}\n\nTo change or cancel it: ${manageUrl}`,
    url: manageUrl,
    organizer: { name: studio.name, email: studio.email },
    attendees: [
      {
        name: displayName(booking.visitor.name),
        email: booking.visitor.email,
        role: ICalAttendeeRole.REQ,
        status: ICalAttendeeStatus.ACCEPTED,
        rsvp: false,
      },
    ],
    status: cancelled ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
    alarms: reminderAlarm(summary, cancelled),
  });
  return {
    method,
    filename: cancelled ? 'cancel.ics' : 'invite.ics',
    content: withFinalLineBreak(calendar.toString()),
  };
}
