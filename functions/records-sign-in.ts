import type { Config } from '@netlify/functions';
import { EMAIL_FIELD, fieldSchema } from '../src/shared/fields';
import { z } from '../src/shared/zod';
import { SIGN_IN_SENT } from '../src/shared/desk-api';
import { sendSignInLink, signInAllowed, steady } from '../src/server/auth/sign-in';
import { normalEmail } from '../src/shared/email';
import { afterAnswer } from '../src/server/request/guard';
import { checked, deskAnswer, deskFunction, deskRefused } from '../src/server/records/endpoint';

export const config: Config = { path: '/api/records/sign-in' };

const schema = z.object({ email: fieldSchema(EMAIL_FIELD) });

/**
 * The records desk's door: `{ email }` in, a sign-in link out to a staff address. Every request
 * gets the same answer after the same time, whether the address may sign in or not, and whether
 * a rate limit held its link back or not (src/server/auth/sign-in.ts).
 */
export default deskFunction(config, [
  {
    POST: {
      open: true,
      maxBytes: 1024,
      async handle({ req, body, client, context }) {
        const started = Date.now();
        const input = checked(schema, body);
        if (!input.ok) return deskRefused(input.problem);
        const email = normalEmail(input.value.email);
        if (await signInAllowed(req, client.ip, email)) {
          const sending = await sendSignInLink(email);
          if (sending) await afterAnswer(context, sending);
        }
        await steady(started);
        return deskAnswer({ message: SIGN_IN_SENT });
      },
    },
  },
]);
