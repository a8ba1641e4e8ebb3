/**
 * Erasure (under /erasure): what is held about an address; erasing all of it once the address is
 * typed again, with a sign-in under FRESH_SIGN_IN_MINUTES old.
 */
import { Hono } from 'hono';
import { normalEmail } from '../../../shared/email';
import { EMAIL_FIELD, fieldSchema } from '../../../shared/fields';
import { z } from '../../../shared/zod';
import { eraseParticipant, previewErasure } from '../erasure';
import { answer, body, freshSignInNeeded, signedIn, type DeskEnv } from '../router';

const participant = fieldSchema({ ...EMAIL_FIELD, about: "the participant's e-mail address" });
const erasureRequest = z
  .object({ email: participant, confirm: z.string('').trim() })
  .refine((input) => normalEmail(input.confirm) === normalEmail(input.email), {
    path: ['confirm'],
    message: "Type the participant's e-mail address again, exactly, to confirm.",
  });

export const erasure = new Hono<DeskEnv>()
  .post('/preview', signedIn(), body(z.object({ email: participant })), async (c) =>
    answer(c, { preview: await previewErasure(c.req.valid('json').email) }),
  )
  .post('/', signedIn(), body(erasureRequest), async (c) => {
    if (!c.var.staff.fresh) return freshSignInNeeded(c);
    return answer(c, { erased: await eraseParticipant(c.req.valid('json').email, c.var.staff) });
  });
