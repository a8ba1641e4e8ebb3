/**
 * The records desk's HTTP API, under /api/records (functions/desk.ts serves it): one Hono app per
 * screen of the desk (./apps/), each path once, with its guard (`signedIn`, `open`), its validator
 * and its handler. What every request goes through is in ./router.ts. The desk's island calls it
 * through Hono's typed client (`DeskApi`, ./api-type.ts): the apps are mounted with `route`, so
 * the client sees every path of every screen, and an answer changed in an app is a type error
 * there.
 */
import { Hono } from 'hono';
import { bookings } from './apps/bookings';
import { classes } from './apps/classes';
import { consultations } from './apps/consultations';
import { delivery } from './apps/delivery';
import { erasure } from './apps/erasure';
import { csvExports } from './apps/exports';
import { kiosks } from './apps/kiosks';
import { list } from './apps/list';
import { log } from './apps/log';
import { messages } from './apps/messages';
import { participants } from './apps/participants';
import { session } from './apps/session';
import { versions } from './apps/versions';
import { waivers } from './apps/waivers';
import type { DeskEnv } from './router';

export const api = new Hono<DeskEnv>()
  .route('/', session)
  .route('/waivers', waivers)
  .route('/participants', participants)
  .route('/', versions)
  .route('/kiosks', kiosks)
  .route('/messages', messages)
  .route('/consultations', consultations)
  .route('/bookings', bookings)
  .route('/bookings', classes)
  .route('/list', list)
  .route('/delivery', delivery)
  .route('/export', csvExports)
  .route('/erasure', erasure)
  .route('/', log);
