/**
 * Small pieces every calendar this site writes shares: the UID of a booking, the attendee's
 * display name, and the line break ical-generator leaves off the last line.
 */

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
