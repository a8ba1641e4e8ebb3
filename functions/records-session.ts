import type { Config } from '@netlify/functions';
import { KIOSK_SIGN_IN, LINK_REFUSED, type DeskAnswer } from '../src/shared/desk-api';
import { useSignInLink } from '../src/server/auth/links';
import {
  endEverySession,
  endSession,
  setSessionCookie,
  startSession,
} from '../src/server/auth/sessions';
import { deviceCookie, forgetDevices, rememberDevice } from '../src/server/auth/devices';
import { isStaff } from '../src/server/auth/staff';
import { transaction } from '../src/server/platform/db';
import { logAccess } from '../src/server/records/access-log';
import { undeliveredCount } from '../src/server/records/delivery';
import {
  DESK_HEADERS,
  deskAnswer,
  deskFunction,
  deskRefusal,
} from '../src/server/records/endpoint';
import { counts } from '../src/server/records/overview';
import { json } from '../src/server/request/responses';
import { forgetKioskCookies, turnOffThisKiosk } from '../src/server/waiver/kiosk';

export const config: Config = { path: ['/api/records/session', '/api/records/sign-out'] };

/**
 * Who is signed in (and the desk's first screen in numbers); following a sign-in link
 * (`{ token }`, spent once, starts a session cookie and remembers the device); signing out, here
 * or everywhere (every session, unused link and remembered device of the person). A link followed
 * on a waiver kiosk is refused (409, the link unspent) unless it says `endKiosk: true`: then the
 * kiosk is turned off in the same transaction that signs her in.
 */
export default deskFunction(config, [
  {
    async GET({ staff }) {
      const [undelivered, numbers] = await Promise.all([undeliveredCount(), counts()]);
      return deskAnswer({
        email: staff.email,
        expiresAt: staff.expiresAt.toISOString(),
        fresh: staff.fresh,
        undelivered,
        counts: numbers,
      });
    },
    POST: {
      open: true,
      onKiosk: true,
      maxBytes: 1024,
      async handle({ req, body, kiosk }) {
        if (kiosk && body.endKiosk !== true) {
          const refusal: DeskAnswer = { success: false, error: KIOSK_SIGN_IN, reason: 'kiosk' };
          return json(refusal, 409, DESK_HEADERS);
        }
        const session = await transaction(async (tx) => {
          const email = await useSignInLink(tx, body.token);
          if (!email || !isStaff(email)) return undefined;
          if (kiosk) {
            await turnOffThisKiosk(tx, kiosk);
            await logAccess({ email }, { action: 'kiosk-off', detail: { signIn: true } }, tx);
          }
          const started = await startSession(tx, email);
          const device = await rememberDevice(tx, req, email);
          await logAccess({ email }, { action: 'sign-in' }, tx);
          return { email, device, ...started };
        });
        if (!session) return deskRefusal(401, LINK_REFUSED);
        const cookie = setSessionCookie(req, session.token, session.expiresAt);
        const answer = deskAnswer(
          { email: session.email, expiresAt: session.expiresAt.toISOString() },
          { 'set-cookie': cookie },
        );
        answer.headers.append('set-cookie', session.device);
        if (kiosk)
          for (const cookie of forgetKioskCookies(req)) answer.headers.append('set-cookie', cookie);
        return answer;
      },
    },
  },
  {
    async POST({ req, body, staff }) {
      const everywhere = body.everywhere === true;
      await transaction(async (tx) => {
        await (everywhere ? endEverySession(tx, staff) : endSession(tx, staff));
        if (everywhere) await forgetDevices(tx, staff.email);
        await logAccess(staff, { action: everywhere ? 'sign-out-everywhere' : 'sign-out' }, tx);
      });
      const answer = deskAnswer({}, { 'set-cookie': setSessionCookie(req) });
      if (everywhere) answer.headers.append('set-cookie', deviceCookie(req));
      return answer;
    },
  },
]);
