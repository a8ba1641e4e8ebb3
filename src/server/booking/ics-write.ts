/**
 * Small pieces every calendar this site writes shares: the UID of a booking, the attendee's
 * display name, the reminder alarm, and the line break ical-generator leaves off the last line.
 */
import { ICalAlarmType, type ICalAlarmData } from 'ical-generator';

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
