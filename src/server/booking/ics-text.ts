/**
 * What is done to a calendar's text before the parser reads it.
 *
 * A floating time (DTSTART:20270311T130000: no Z, no TZID) means "this wall-clock time wherever
 * you are"; the instructor is in the studio's zone, so that is where it is read. node-ical would
 * read it in the zone the server runs in (UTC on Netlify) and expand its recurrences in UTC, so
 * the text is anchored first: each floating DATE-TIME in an event gets TZID=<studio zone>, and the
 * parser does the rest with its own zone handling. VTIMEZONE blocks are left alone: their
 * DTSTARTs are floating on purpose.
 */

/** Whether the text is an iCalendar object at all (not an HTML sign-in page, not JSON). */
export function looksLikeCalendar(text: string): boolean {
  return /^\uFEFF?\s*BEGIN:VCALENDAR\b/i.test(text);
}

// A parameter's name holds no `=`: with one allowed, a long `;a=a=a=...` splits in so many ways
// that matching it takes time growing with the square of its length.
const DATED = /^(DTSTART|DTEND|RECURRENCE-ID|EXDATE|RDATE)((?:;[^:;=]+=[^:;]*)*):(.*)$/i;
const FLOATING = /^\d{8}T\d{6}(?:,\d{8}T\d{6})*$/;

export function anchorFloatingTimes(text: string, timeZone: string): string {
  // RFC 5545 §3.1: a line break followed by a space or tab continues the line.
  const lines = text.replace(/\r?\n[ \t]/g, '').split(/\r?\n/);
  let inZone = false;
  return lines
    .map((line) => {
      if (/^BEGIN:VTIMEZONE$/i.test(line)) inZone = true;
      if (/^END:VTIMEZONE$/i.test(line)) inZone = false;
      const match = inZone ? null : DATED.exec(line);
      if (!match || /;TZID=/i.test(match[2]) || !FLOATING.test(match[3])) return line;
      return `${match[1]}${match[2]};TZID=${timeZone}:${match[3]}`;
    })
    .join('\r\n');
}
