/** Kiosks (under /kiosks): the devices that are the studio's waiver kiosk; turning one on or off. */
import { Hono } from 'hono';
import { z } from '../../../shared/zod';
import { transaction } from '../../platform/db';
import {
  forgetKioskCookies,
  kioskId,
  kioskOf,
  listKiosks,
  turnOffKiosk,
  turnOnKiosk,
} from '../../waiver/kiosk';
import { logAccess } from '../access-log';
import { answer, body, refuse, signedIn, type DeskEnv } from '../router';
import { nothing } from './schemas';

const kiosk = z.object({
  label: z
    .string('Please name the device.')
    .trim()
    .min(1, 'Please name the device, e.g. "Front desk tablet".')
    .max(80, 'Please keep the name under 80 characters.'),
});

export const kiosks = new Hono<DeskEnv>()
  .get('/', signedIn(), async (c) => answer(c, { items: await listKiosks(c.req.raw) }))
  .post('/', signedIn(), body(kiosk), async (c) => {
    const { staff } = c.var;
    const { label } = c.req.valid('json');
    // The desk session that asked ends with it: a kiosk is a device nobody of the studio is
    // signed in on, so the next person to hold it finds no desk behind the waiver form.
    const cookies = await transaction(async (tx) => {
      const set = await turnOnKiosk(tx, c.req.raw, staff, label);
      await logAccess(staff, { action: 'kiosk-on', detail: { label } }, tx);
      return set;
    });
    for (const cookie of cookies) c.header('set-cookie', cookie, { append: true });
    return answer(c, { kiosk: true, signedOut: true });
  })
  .post('/:id/off', signedIn(), body(nothing), async (c) => {
    const id = c.req.param('id');
    const mine = await kioskOf(c.req.raw);
    const wasThisDevice = mine !== undefined && kioskId(mine) === id;
    if (!(await turnOffKiosk(id))) return refuse(c, 404);
    await logAccess(c.var.staff, { action: 'kiosk-off', detail: { id } });
    if (wasThisDevice) {
      for (const cookie of forgetKioskCookies(c.req.raw)) {
        c.header('set-cookie', cookie, { append: true });
      }
    }
    return answer(c, { id, off: true });
  });
