/**
 * Get Notified: the one-field form on the Events page that puts an address on the list told when
 * event dates are announced, shared by the page and the function. The words here are the form's,
 * the answer's, and the wording a person agrees to by confirming (stored with the confirmation).
 */
import { EMAIL_FIELD, fieldsSchema, submissionIdField, type FieldSpec } from './fields';
import { z } from './zod';

export const LIST_ACTION = '/api/notify';

export const LIST_FIELDS = {
  email: { ...EMAIL_FIELD, placeholder: 'you@example.com' },
} as const satisfies Record<string, FieldSpec>;

export const listSchema = z.object({
  ...fieldsSchema(LIST_FIELDS),
  submissionId: submissionIdField('sign-up'),
});

export type ListSignUp = z.output<typeof listSchema>;

export const LIST_WORDS = {
  button: 'Tell me when dates are announced',
  /** What a person agrees to: shown under the form, stored with the confirmation. */
  consent:
    'We will e-mail you when new event dates are announced, and about nothing else. Every e-mail has a link to stop them.',
  sent: {
    title: 'Check your inbox',
    text: 'A message with a link is on its way to that address. Open it within 48 hours and press Confirm to join the list; until then we send nothing else.',
  },
  failed: {
    title: 'You could not be signed up',
    fallback: (email: string) => `Please try again or write to ${email}`,
  },
} as const;

/** The wording a confirmation records: the form's button and the line under it. */
export const LIST_WORDING = `${LIST_WORDS.button}. ${LIST_WORDS.consent}`;

export const LIST_LABELS: Record<keyof ListSignUp, string> = {
  email: LIST_FIELDS.email.label,
  submissionId: 'Form',
};

/**
 * An upcoming event as the build wrote it for announcing (`/list/events.json`): the words of
 * its announcement, already formatted in the event's own time zone.
 */
export interface AnnounceableEvent {
  id: string;
  title: string;
  /** "Saturday, April 17, 2027" and "9:30 AM – 12:00 PM PDT" (or one line for several days). */
  when: string;
  place: string;
  price: string;
  summary: string;
  /** The event's page, e.g. `/events/spring-workshop`. */
  path: string;
  /** When it ends (ISO): an event that has ended is no longer offered. */
  endsAt: string;
}

/** Where the build writes the events the desk can announce (read by the desk's function). */
export const ANNOUNCEABLE_FILE = 'list/events.json';
