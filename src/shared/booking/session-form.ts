/**
 * The booking form of a private or in-home session (/book/<type>): its fields, described once
 * like the other forms' (fields.ts), the schema the page's form and the function both check with,
 * and its words. The price is never one of its fields' values that counts: a form may post the
 * price it showed (`price`), and a price that is not the one in content is refused, nothing
 * stored. Browser and server: it imports only src/shared/ (zod through ../zod, jitless).
 */
import { fieldsSchema, submissionIdField, type FieldSpec } from '../fields';
import { z } from '../zod';
import { BOOKING_FIELDS, SLOT_FIELD, slotSchemaFor } from './form';
import type { SlotDay } from './slots';

export const SESSION_FIELDS = {
  name: BOOKING_FIELDS.name,
  email: BOOKING_FIELDS.email,
  phone: BOOKING_FIELDS.phone,
  // An in-home session's address: asked only there (the function requires it for one).
  street: {
    label: 'Street address (for a session at your home)',
    kind: 'text',
    required: false,
    max: 200,
    about: 'the street address where the session takes place',
    autoComplete: 'street-address',
    placeholder: '1234 SE Main St, Apt 5',
  },
  postalCode: {
    label: 'ZIP code',
    kind: 'text',
    required: false,
    max: 10,
    about: 'your ZIP code',
    autoComplete: 'postal-code',
  },
} as const satisfies Record<string, FieldSpec>;

/** The session booked: the name of its file in content/sessions (`private`, `in-home`). */
export const SESSION_TYPE_FIELD = 'sessionType';

const TYPE = /^[a-z0-9-]{1,60}$/;
export const UNKNOWN_SESSION = 'Please choose one of the sessions offered.';
export const PRICE_CHANGED =
  'The price shown is not the price of this session. Please reload the page and book again.';

export const sessionBookingSchema = z.object({
  [SESSION_TYPE_FIELD]: z.string(UNKNOWN_SESSION).trim().regex(TYPE, UNKNOWN_SESSION),
  [SLOT_FIELD]: slotSchemaFor('session'),
  ...fieldsSchema(SESSION_FIELDS),
  /** The price the page showed, in dollars: checked against content, never stored. */
  price: z
    .union([z.number(), z.string().trim()], PRICE_CHANGED)
    .optional()
    .transform((value, context) => {
      if (value === undefined || value === '') return undefined;
      const number = typeof value === 'number' ? value : Number(value.replace(/^\$/, ''));
      if (!Number.isFinite(number) || number < 0) {
        context.addIssue({ code: 'custom', message: PRICE_CHANGED });
        return z.NEVER;
      }
      return number;
    }),
  submissionId: submissionIdField('booking'),
});

export type SessionBookingRequest = z.output<typeof sessionBookingSchema>;
export type SessionBookingField = keyof SessionBookingRequest;

export const SESSION_LABELS: Record<SessionBookingField, string> = {
  [SESSION_TYPE_FIELD]: 'Session',
  [SLOT_FIELD]: 'Time',
  name: SESSION_FIELDS.name.label,
  email: SESSION_FIELDS.email.label,
  phone: 'Phone',
  street: 'Street address',
  postalCode: SESSION_FIELDS.postalCode.label,
  price: 'Price',
  submissionId: 'Form',
};

/** Where the session form posts. */
export const SESSION_ACTION = '/api/book-session';

/** The booking page of a session type. */
export const sessionPage = (type: string) => `/book/${type}`;

export const SESSION_NOTICES = {
  sent: {
    title: 'Your session is booked!',
    text: 'A confirmation with a calendar invite is on its way to your inbox.',
  },
  failed: {
    title: 'The session could not be booked',
    fallback: (email: string) => `Please try again or write to ${email}`,
  },
} as const;

/** The booking as the answer to a stored session booking describes it to the visitor. */
export interface SessionSummary {
  title: string;
  start: string;
  end: string;
  day: string;
  time: string;
  place: string;
  /** "$120, due at the studio" */
  due: string;
  policy: string;
  /** The page to change or cancel it. */
  manage: string;
}

/** What the booking page of one session type shows (src/server/booking/session-page.ts). */
export interface SessionPageData {
  type: {
    id: string;
    title: string;
    price: number;
    lengthMinutes: number;
    where: 'studio' | 'home';
    areas: string[];
    travelMinutes: number;
  };
  /** "At the studio: 2140 SE Division St, ..." or "At your address (ZIP codes ...)". */
  place: string;
  /** "$120, paid at the studio" */
  due: string;
  policy: string;
  /** "Times are Pacific Time, the studio's time zone (Portland, Oregon)." */
  zoneNote: string;
  studioEmail: string;
  days: SlotDay[];
  /** At their home: what a ZIP code outside her areas is told, beside the field at once. */
  outsideWords: string;
  /** The waiver, said to everyone before booking (the page cannot know who is booking). */
  waiverNote: string;
}

/** What the manage page of one session shows (src/server/booking/session-manage.ts). */
export type SessionManageData =
  /** No session: a link that opens none, or (`repeat`) the answer to a form sent again. */
  | { found: false; repeat?: true }
  | {
      found: true;
      token: string;
      session: SessionSummary;
      cancelled: boolean;
      /** Over, or under way. */
      past: boolean;
      /** Within the policy now: the page offers to move or cancel it. */
      changeable: boolean;
      /**
       * Paid online: `held` while its checkout is open (until that time, in words: "3:40 PM"),
       * `lapsed` when no payment came in time and the time was given back.
       */
      checkout?: { state: 'held'; until: string } | { state: 'lapsed' };
      policy: string;
      /** Why it can no longer be changed here, when it cannot (the policy's words). */
      refusal?: string;
      /** What a POST just refused, in the visitor's words. */
      problem?: string;
      /** The times it can move to (its own time aside), when changeable. */
      days: SlotDay[];
    };
