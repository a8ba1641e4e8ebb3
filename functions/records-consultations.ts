import type { Config } from '@netlify/functions';
import { NOTE_MAX, type BookingsWhen } from '../src/shared/desk-api';
import { z } from '../src/shared/zod';
import { outbox } from '../src/server/mail-kinds';
import { afterAnswer } from '../src/server/request/guard';
import { siteOrigin } from '../src/server/platform/hosting';
import {
  checked,
  deskAnswer,
  deskFunction,
  deskRefusal,
  deskRefused,
} from '../src/server/records/endpoint';
import { readFilters } from '../src/server/records/filters';
import {
  blockTime,
  cancelFromDesk,
  consultationsCalendar,
  listBookings,
  newFeedToken,
  unblockTime,
} from '../src/server/records/consultations';

export const config: Config = {
  path: [
    '/api/records/consultations',
    '/api/records/consultations/:id/cancel',
    '/api/records/consultations/calendar',
    '/api/records/consultations/blocks',
    '/api/records/consultations/blocks/:id/remove',
    '/api/records/consultations/feed',
  ],
};

const note = z
  .string('Please write the note as text.')
  .trim()
  .max(NOTE_MAX, `Please keep the note under ${NOTE_MAX.toLocaleString('en-US')} characters.`)
  .default('');

const day = (what: string) => z.iso.date({ error: `Please enter the ${what} as a date.` });
const time = z
  .union([
    z.literal(''),
    z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'Please enter a time like 14:30.'),
  ])
  .optional()
  .transform((value) => value || undefined);

const block = z
  .object({ from: day('first day'), to: day('last day'), fromTime: time, toTime: time, note })
  .refine((input) => input.to >= input.from, {
    path: ['to'],
    message: 'The last day must not be before the first day.',
  });

/**
 * The Consultations screen: the bookings to come and past, cancelling one (the visitor is told),
 * blocking time, the instructor's calendar's state, and the secret address of her feed.
 */
export default deskFunction(config, [
  {
    async GET({ url }) {
      const when: BookingsWhen = url.searchParams.get('when') === 'past' ? 'past' : 'upcoming';
      const filters = readFilters(url);
      if (!filters.ok) return deskRefused(filters.problem);
      return deskAnswer(await listBookings(when, filters.value.after));
    },
  },
  {
    async POST({ params, body, staff, context }) {
      const input = checked(z.object({ note }), body);
      if (!input.ok) return deskRefused(input.problem);
      const mails = await cancelFromDesk(params.id, input.value.note, staff, outbox);
      if (!mails) {
        return deskRefusal(
          409,
          'That consultation is not to come any more: it was cancelled already, or is over.',
        );
      }
      if (mails.length > 0) await afterAnswer(context, outbox.deliverNow(mails));
      return deskAnswer({ id: params.id, cancelled: true });
    },
  },
  {
    async GET() {
      return deskAnswer(await consultationsCalendar());
    },
  },
  {
    async POST({ body, staff }) {
      const input = checked(block, body);
      if (!input.ok) return deskRefused(input.problem);
      const added = await blockTime(input.value, staff);
      if (!added) {
        return deskRefused({
          status: 422,
          error: 'The end must come after the start.',
          fieldErrors: { toTime: 'The end must come after the start.' },
        });
      }
      return deskAnswer(added);
    },
  },
  {
    async POST({ params, staff }) {
      if (!(await unblockTime(params.id, staff))) return deskRefusal(404);
      return deskAnswer({ id: params.id, removed: true });
    },
  },
  {
    async POST({ staff }) {
      const token = await newFeedToken(staff);
      return deskAnswer({ url: `${siteOrigin()}/api/consultation/feed/${token}.ics` });
    },
  },
]);
