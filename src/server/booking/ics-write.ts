/**
 * The calendar invitation every kind of booking sends with its mails (RFC 5546, iTIP), and the
 * small pieces it is made of.
 *
 * What Gmail, Outlook and Apple Calendar need to add the event and later update or remove it:
 * the mail's text/calendar part carries `method=REQUEST` or `method=CANCEL`, matching METHOD
 * inside (nodemailer's `icalEvent: { method, content }` writes both, so `bookingCalendar`
 * returns exactly that object); every message about one booking has the same UID and ORGANIZER,
 * and a SEQUENCE higher than the last one sent (Outlook ignores an update or a cancellation that
 * is not newer); the mail comes from the ORGANIZER's address; a CANCEL lists the ATTENDEE again
 * and says STATUS:CANCELLED. Times are written in UTC, which every client converts to its
 * reader's zone (a TZID would need a VTIMEZONE, and ical-generator has no zone database).
 * The visitor chose the time, so they are already ACCEPTED and no reply is asked for.
 */
import ical, {
  ICalAlarmType,
  ICalAttendeeRole,
  ICalAttendeeStatus,
  ICalCalendarMethod,
  ICalEventStatus,
  type ICalAlarmData,
} from 'ical-generator';
import type { CalendarEvent } from '../platform/mail';

/** One booking's event, as its kind words it. */
export interface BookingInvite {
  /** Never changes for one booking: made from its id (`bookingUid`, `sessionUid`, `placeUid`). */
  uid: string;
  /** Raised before every message about it; a cancellation's is above the last invite's. */
  sequence: number;
  start: Date;
  end: Date;
  /** The event's name; a cancellation's is `Cancelled: ` and this. */
  summary: string;
  description: string;
  location: string;
  /** The page where the visitor changes or cancels it, if it has one. */
  url?: string;
  studio: { name: string; email: string };
  /** The one attendee: the visitor; none on the instructor's own event of a class date. */
  attendee?: { name: string; email: string };
  /** DTSTAMP: when this message is written, from the caller's clock. */
  now: Date;
  /** The PRODID's product: 'Consultations', 'Sessions' or 'Classes'. */
  product: string;
}

export function bookingCalendar(
  method: 'REQUEST' | 'CANCEL',
  invite: BookingInvite,
): CalendarEvent {
  if (!Number.isInteger(invite.sequence) || invite.sequence < 0) {
    throw new RangeError(`SEQUENCE must be a whole number from 0, not ${invite.sequence}`);
  }
  const cancelled = method === 'CANCEL';
  const calendar = ical({
    prodId: { company: invite.studio.name, product: invite.product, language: 'EN' },
    method: cancelled ? ICalCalendarMethod.CANCEL : ICalCalendarMethod.REQUEST,
  });
  calendar.createEvent({
    id: invite.uid,
    sequence: invite.sequence,
    stamp: invite.now,
    start: invite.start,
    end: invite.end,
    summary: cancelled ? `Cancelled: ${invite.summary}` : invite.summary,
    location: invite.location,
    description: invite.description,
    ...(invite.url ? { url: invite.url } : {}),
    organizer: { name: invite.studio.name, email: invite.studio.email },
    attendees: invite.attendee
      ? [
          {
            name: displayName(invite.attendee.name),
            email: invite.attendee.email,
            role: ICalAttendeeRole.REQ,
            status: ICalAttendeeStatus.ACCEPTED,
            rsvp: false,
          },
        ]
      : [],
    status: cancelled ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
    alarms: reminderAlarm(invite.summary, cancelled),
  });
  return {
    method,
    filename: cancelled ? 'cancel.ics' : 'invite.ics',
    content: withFinalLineBreak(calendar.toString()),
  };
}

/** How long before a booking its invite's alarm rings. */
export const ALARM_MINUTES_BEFORE = 60;

/**
 * The alarm of a booking's invite (a VALARM that shows a reminder an hour before), none on a
 * cancellation: a calendar that adds the event reminds its reader, whatever its own default.
 */
export function reminderAlarm(summary: string, cancelled: boolean): ICalAlarmData[] {
  if (cancelled) return [];
  return [
    {
      type: ICalAlarmType.display,
      triggerBefore: ALARM_MINUTES_BEFORE * 60,
      description: `${summary}, in ${ALARM_MINUTES_BEFORE} minutes`,
    },
  ];
}

/**
 * The visitor's name as the attendee's CN: a display name only (the address is what counts),
 * written without the characters parsers split parameters on, which a quoted value may hold by
 * the RFC but not every reader honours (node-ical splits CN="a; b" at the semicolon).
 */
export function displayName(name: string): string {
  return (
    name
      // eslint-disable-next-line no-control-regex -- control characters are what is removed
      .replace(/[\u0000-\u001f\u007f]+/g, ' ')
      .replace(/"/g, "'")
      .replace(/;/g, ',')
  );
}

/** RFC 5545 ends every line, the last one too, with CRLF; ical-generator leaves the last bare. */
export function withFinalLineBreak(text: string): string {
  return text.endsWith('\r\n') ? text : `${text}\r\n`;
}

export function bookingUid(id: string, host: string): string {
  return `booking-${id}@${host}`;
}
