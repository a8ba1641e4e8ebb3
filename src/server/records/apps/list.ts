/**
 * List (under /list): the Get Notified list's counts, its CSV, removing an address, and
 * announcing an event to it (once per event).
 */
import { Hono } from 'hono';
import { z } from '../../../shared/zod';
import { announceEvent, listCsv, listOverview, removeFromList } from '../list';
import { answer, body, download, refuse, signedIn, type DeskEnv } from '../router';

export const list = new Hono<DeskEnv>()
  .get('/', signedIn(), async (c) => answer(c, await listOverview()))
  .get('/export', signedIn(), async (c) => {
    const { csv } = await listCsv(c.var.staff);
    const day = new Date().toISOString().slice(0, 10);
    return download(csv, 'text/csv; charset=utf-8', `get-notified-list-${day}.csv`);
  })
  .post(
    '/remove',
    signedIn(),
    body(
      z.object({
        email: z.email('Please enter an e-mail address, like name@example.com.').trim().max(254),
      }),
    ),
    async (c) => {
      if (!(await removeFromList(c.req.valid('json').email, c.var.staff))) {
        return refuse(c, 404, 'That address is not on the list.');
      }
      return answer(c, { removed: true });
    },
  )
  .post(
    '/announce',
    signedIn(),
    body(z.object({ eventId: z.string('Please choose an event.').min(1).max(200) })),
    async (c) => {
      const outcome = await announceEvent(c.req.valid('json').eventId, c.var.staff);
      if (!outcome.ok) {
        return outcome.why === 'already'
          ? refuse(c, 409, 'That event has been announced to the list already.')
          : refuse(c, 404, 'That event is not among the events to come.');
      }
      return answer(c, { recipients: outcome.recipients, lastDue: outcome.lastDue });
    },
  );
