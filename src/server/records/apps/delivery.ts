/**
 * Delivery (under /delivery): every mail still owed or given up on; "send again" for a failed one
 * (logged).
 */
import { Hono } from 'hono';
import { LIST_LIMIT, retryFailedMail, undeliveredCount, undeliveredMail } from '../delivery';
import { answer, body, refuse, signedIn, type DeskEnv } from '../router';
import { nothing } from './schemas';

export const delivery = new Hono<DeskEnv>()
  .get('/', signedIn(), async (c) => {
    const [items, undelivered] = await Promise.all([undeliveredMail(), undeliveredCount()]);
    return answer(c, { items, undelivered, limit: LIST_LIMIT });
  })
  .post('/:id/send-again', signedIn(), body(nothing), async (c) => {
    const id = c.req.param('id');
    const outcome = await retryFailedMail(id, c.var.staff);
    if (!outcome) {
      return refuse(
        c,
        409,
        'That e-mail is not waiting to be sent again: it was sent, or is still being tried.',
      );
    }
    return answer(c, { id, sent: outcome.sent > 0 });
  });
