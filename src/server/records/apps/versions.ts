/** Versions: the waiver's texts as signed, and re-sign requests for a material new one. */
import { Hono } from 'hono';
import { z } from '../../../shared/zod';
import { outbox } from '../../mail-kinds';
import { afterAnswer } from '../../request/guard';
import { answer, body, signedIn, type DeskEnv } from '../router';
import { reSignList, requestReSign, waiverTexts } from '../versions';

export const versions = new Hono<DeskEnv>()
  .get('/waiver-texts', signedIn(), async (c) => answer(c, await waiverTexts()))
  .get('/re-sign', signedIn(), async (c) => answer(c, { items: await reSignList() }))
  .post(
    '/re-sign',
    signedIn(),
    body(z.object({ waiverId: z.uuid('Please choose a participant from the list.').optional() })),
    async (c) => {
      const { mails, requested } = await requestReSign(
        c.var.staff,
        outbox,
        c.req.valid('json').waiverId,
      );
      if (mails.length > 0) await afterAnswer(c.env?.context, outbox.deliverNow(mails));
      return answer(c, { requested });
    },
  );
