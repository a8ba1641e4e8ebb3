/**
 * The ref of the outbox mails about one version of a booking of any kind (a consultation, a
 * session, a class place, a class date, a waitlist offer): its id and the version's sequence, so
 * a mail is composed from the booking as it was when queued. Its stores export it as their own.
 */
export const mailRef = (id: string, sequence: number) => `${id}:${sequence}`;

/** A mail's ref read back: the booking and the version it was queued for. */
export function readMailRef(ref: string): { id: string; sequence: number } | undefined {
  const match = /^([0-9a-f-]{36}):(\d{1,9})$/i.exec(ref);
  return match ? { id: match[1].toLowerCase(), sequence: Number(match[2]) } : undefined;
}
