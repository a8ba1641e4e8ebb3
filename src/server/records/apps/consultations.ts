/**
 * Consultations (under /consultations): the bookings to come and past, cancelling one (the
 * visitor is told), blocking time, the instructor's calendar's state, and the secret address of
 * her feed.
 */
import { Hono } from 'hono';
import { z } from '../../../shared/zod';
import { outbox } from '../../mail-kinds';
import { siteOrigin } from '../../platform/hosting';
import { afterAnswer } from '../../request/guard';
import {
  blockTime,
  cancelFromDesk,
  consultationsCalendar,
  listBookings,
  newFeedToken,
  unblockTime,
} from '../consultations';
import { filtersQuery } from '../filters';
import { answer, body, query, refuse, refuseFields, signedIn, type DeskEnv } from '../router';
import { day, note, nothing } from './schemas';

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

export const consultations = new Hono<DeskEnv>()
  .get(
    '/',
    signedIn(),
    query(filtersQuery({ when: z.enum(['upcoming', 'past']).optional().catch(undefined) })),
    async (c) => {
      const { filters, when = 'upcoming' } = c.req.valid('query');
      return answer(c, await listBookings(when, filters.after));
    },
  )
  .post('/:id/cancel', signedIn(), body(z.object({ note })), async (c) => {
    const id = c.req.param('id');
    const mails = await cancelFromDesk(id, c.req.valid('json').note, c.var.staff, outbox);
    if (!mails) {
      return refuse(
        c,
        409,
        'That consultation is not to come any more: it was cancelled already, or is over.',
      );
    }
    if (mails.length > 0) await afterAnswer(c.env?.context, outbox.deliverNow(mails));
    return answer(c, { id, cancelled: true });
  })
  .get('/calendar', signedIn(), async (c) => answer(c, await consultationsCalendar()))
  .post('/blocks', signedIn(), body(block), async (c) => {
    const added = await blockTime(c.req.valid('json'), c.var.staff);
    if (!added) return refuseFields(c, { toTime: 'The end must come after the start.' });
    return answer(c, added);
  })
  .post('/blocks/:id/remove', signedIn(), body(nothing), async (c) => {
    const id = c.req.param('id');
    if (!(await unblockTime(id, c.var.staff))) return refuse(c, 404);
    return answer(c, { id, removed: true });
  })
  .post('/feed', signedIn(), body(nothing), async (c) => {
    const token = await newFeedToken(c.var.staff);
    return answer(c, { url: `${siteOrigin()}/api/consultation/feed/${token}.ics` });
  });
