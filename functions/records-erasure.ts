import type { Config } from '@netlify/functions';
import { EMAIL_FIELD, fieldSchema } from '../src/shared/fields';
import { z } from '../src/shared/zod';
import { normalEmail } from '../src/shared/email';
import {
  checked,
  deskAnswer,
  deskFunction,
  deskRefused,
  freshSignInNeeded,
} from '../src/server/records/endpoint';
import { eraseParticipant, previewErasure } from '../src/server/records/erasure';

export const config: Config = {
  path: ['/api/records/erasure/preview', '/api/records/erasure'],
};

const participant = fieldSchema({ ...EMAIL_FIELD, about: "the participant's e-mail address" });

const confirmed = z
  .object({ email: participant, confirm: z.string('').trim() })
  .refine((input) => normalEmail(input.confirm) === normalEmail(input.email), {
    path: ['confirm'],
    message: "Type the participant's e-mail address again, exactly, to confirm.",
  });

/**
 * What is held about an address; erasing all of it once the address is typed again, with a sign-in
 * under FRESH_SIGN_IN_MINUTES old.
 */
export default deskFunction(config, [
  {
    async POST({ body }) {
      const input = checked(z.object({ email: participant }), body);
      if (!input.ok) return deskRefused(input.problem);
      return deskAnswer({ preview: await previewErasure(input.value.email) });
    },
  },
  {
    async POST({ body, staff }) {
      const input = checked(confirmed, body);
      if (!input.ok) return deskRefused(input.problem);
      if (!staff.fresh) return freshSignInNeeded();
      return deskAnswer({ erased: await eraseParticipant(input.value.email, staff) });
    },
  },
]);
