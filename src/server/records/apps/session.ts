/**
 * The desk's door: asking for a sign-in link, following one, who is signed in (with the first
 * screen's numbers), and signing out.
 */
import { Hono } from 'hono';
import { KIOSK_SIGN_IN, LINK_REFUSED, SIGN_IN_SENT } from '../../../shared/desk-api';
import { normalEmail } from '../../../shared/email';
import { EMAIL_FIELD, fieldSchema } from '../../../shared/fields';
import { z } from '../../../shared/zod';
import { deviceCookie, forgetDevices, rememberDevice } from '../../auth/devices';
import { useSignInLink } from '../../auth/links';
import { endEverySession, endSession, setSessionCookie, startSession } from '../../auth/sessions';
import { sendSignInLink, signInAllowed, steady } from '../../auth/sign-in';
import { isStaff } from '../../auth/staff';
import { transaction } from '../../platform/db';
import { afterAnswer } from '../../request/guard';
import { forgetKioskCookies, turnOffThisKiosk } from '../../waiver/kiosk';
import { logAccess } from '../access-log';
import { undeliveredCount } from '../delivery';
import { counts } from '../overview';
import { answer, body, open, refuse, signedIn, type DeskEnv } from '../router';

/** A flag or a token sent otherwise than as it should be is as good as none (not a 422). */
const flag = z.boolean().optional().catch(undefined);

const email = fieldSchema(EMAIL_FIELD);

export const session = new Hono<DeskEnv>()
  /**
   * The records desk's door: `{ email }` in, a sign-in link out to a staff address. Every request
   * gets the same answer after the same time, whether the address may sign in or not, and
   * whether a rate limit held its link back or not (src/server/auth/sign-in.ts).
   */
  .post('/sign-in', open({ maxBytes: 1024 }), body(z.object({ email })), async (c) => {
    const started = Date.now();
    const email = normalEmail(c.req.valid('json').email);
    if (await signInAllowed(c.req.raw, c.var.client.ip, email)) {
      const sending = await sendSignInLink(email);
      if (sending) await afterAnswer(c.env?.context, sending);
    }
    await steady(started);
    return answer(c, { message: SIGN_IN_SENT });
  })

  /** Who is signed in, and the desk's first screen in numbers. */
  .get('/session', signedIn(), async (c) => {
    const { staff } = c.var;
    const [undelivered, numbers] = await Promise.all([undeliveredCount(), counts()]);
    return answer(c, {
      email: staff.email,
      expiresAt: staff.expiresAt.toISOString(),
      fresh: staff.fresh,
      undelivered,
      counts: numbers,
    });
  })

  /**
   * Following a sign-in link (`{ token }`, spent once): starts a session cookie and remembers the
   * device. A link followed on a waiver kiosk is refused (409, the link unspent) unless it says
   * `endKiosk: true`: then the kiosk is turned off in the same transaction that signs her in.
   */
  .post(
    '/session',
    open({ onKiosk: true, maxBytes: 1024 }),
    body(z.object({ token: z.string().optional().catch(undefined), endKiosk: flag })),
    async (c) => {
      const req = c.req.raw;
      const { kiosk } = c.var;
      const { token, endKiosk } = c.req.valid('json');
      if (kiosk && endKiosk !== true) return refuse(c, 409, KIOSK_SIGN_IN, { reason: 'kiosk' });
      const session = await transaction(async (tx) => {
        const email = await useSignInLink(tx, token);
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
      if (!session) return refuse(c, 401, LINK_REFUSED);
      c.header('set-cookie', setSessionCookie(req, session.token, session.expiresAt));
      c.header('set-cookie', session.device, { append: true });
      if (kiosk) {
        for (const cookie of forgetKioskCookies(req))
          c.header('set-cookie', cookie, { append: true });
      }
      return answer(c, { email: session.email, expiresAt: session.expiresAt.toISOString() });
    },
  )

  /**
   * Signing out, here or everywhere (every session, unused link and remembered device of the
   * person).
   */
  .post('/sign-out', signedIn(), body(z.object({ everywhere: flag })), async (c) => {
    const { staff } = c.var;
    const everywhere = c.req.valid('json').everywhere === true;
    await transaction(async (tx) => {
      await (everywhere ? endEverySession(tx, staff) : endSession(tx, staff));
      if (everywhere) await forgetDevices(tx, staff.email);
      await logAccess(staff, { action: everywhere ? 'sign-out-everywhere' : 'sign-out' }, tx);
    });
    c.header('set-cookie', setSessionCookie(c.req.raw));
    if (everywhere) c.header('set-cookie', deviceCookie(c.req.raw), { append: true });
    return answer(c, {});
  });
