/**
 * Messages (under /messages): find them (all, the inbox, or the spam); "not spam" queues a
 * message's mail, once.
 */
import { Hono } from 'hono';
import { z } from '../../../shared/zod';
import { filtersQuery } from '../filters';
import { markNotSpam, searchMessages } from '../messages';
import { answer, body, query, refuse, signedIn, type DeskEnv } from '../router';
import { nothing } from './schemas';

export const messages = new Hono<DeskEnv>()
  .get(
    '/',
    signedIn(),
    query(filtersQuery({ show: z.enum(['all', 'inbox', 'spam']).optional().catch(undefined) })),
    async (c) => {
      const { filters, show = 'all' } = c.req.valid('query');
      return answer(c, await searchMessages(filters, show));
    },
  )
  .post('/:id/not-spam', signedIn(), body(nothing), async (c) => {
    const id = c.req.param('id');
    const outcome = await markNotSpam(id, c.var.staff);
    if (!outcome) return refuse(c, 404);
    return answer(c, {
      id,
      queued: outcome.queued,
      sent: outcome.delivery ? outcome.delivery.sent > 0 : false,
    });
  });
