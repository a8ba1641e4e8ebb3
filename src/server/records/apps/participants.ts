/**
 * Participants (under /participants): everyone who signed with one address, in any case. The
 * quick check by name, e-mail or phone; one participant's status and waivers (reached through any
 * of their waivers' ids, so no address is in a URL); their health information (logged).
 */
import { Hono } from 'hono';
import { z } from '../../../shared/zod';
import { logAccess } from '../access-log';
import { queryText } from '../filters';
import { participantHealth, participantView, searchParticipants } from '../participants';
import { answer, query, refuse, signedIn, type DeskEnv } from '../router';

const FIND_PARTICIPANT = 'Please type at least two letters of a name, e-mail or phone.';

export const participants = new Hono<DeskEnv>()
  .get(
    '/',
    signedIn(),
    query(
      z.object({
        q: queryText
          .transform((text) => text.slice(0, 200))
          .refine((text) => text.length >= 2, FIND_PARTICIPANT),
      }),
    ),
    async (c) => answer(c, { items: await searchParticipants(c.req.valid('query').q) }),
  )
  .get('/:id', signedIn(), async (c) => {
    const participant = await participantView(c.req.param('id'));
    if (!participant) return refuse(c, 404);
    return answer(c, { id: participant.waiverId, participant });
  })
  .get('/:id/health', signedIn(), async (c) => {
    const id = c.req.param('id');
    const health = await participantHealth(id);
    if (!health) return refuse(c, 404);
    await logAccess(c.var.staff, {
      action: 'view-participant-health',
      recordKind: 'waiver',
      recordId: id,
    });
    return answer(c, { id, health });
  });
