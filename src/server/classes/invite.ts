/**
 * The calendar invitations of the classes (RFC 5546, as the consultation's: booking/invite.ts):
 * a participant's place (`METHOD:REQUEST`, UID from the place's id, SEQUENCE its sequence;
 * `METHOD:CANCEL` with the same UID and a higher SEQUENCE when it is cancelled), and the
 * instructor's own event of the class date (UID from the date's id), which names nobody.
 * A participant's invite lists that participant alone: never another participant.
 */
import ical, {
  ICalAttendeeRole,
  ICalAttendeeStatus,
  ICalCalendarMethod,
  ICalEventStatus,
} from 'ical-generator';
import type { CalendarEvent } from '../platform/mail';
import { displayName, reminderAlarm, withFinalLineBreak } from '../booking/ics-write';

export interface ClassInvite {
  uid: string;
  sequence: number;
  start: Date;
  end: Date;
  summary: string;
  description: string;
  location: string;
  url?: string;
  studio: { name: string; email: string };
  /** The one attendee: the participant of a place; none on the instructor's own event. */
  attendee?: { name: string; email: string };
  now: Date;
}

export const placeUid = (placeId: string, host: string) => `class-place-${placeId}@${host}`;
export const classUid = (dateId: string, host: string) => `class-${dateId}@${host}`;

export function classCalendar(method: 'REQUEST' | 'CANCEL', invite: ClassInvite): CalendarEvent {
  if (!Number.isInteger(invite.sequence) || invite.sequence < 0) {
    throw new RangeError(`SEQUENCE must be a whole number from 0, not ${invite.sequence}`);
  }
  const cancelled = method === 'CANCEL';
  const calendar = ical({
    prodId: { company: invite.studio.name, product: 'Classes', language: 'EN' },
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
