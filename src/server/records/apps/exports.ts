/**
 * Export (under /export): CSV of the waivers (health columns only when asked for, with a sign-in
 * under FRESH_SIGN_IN_MINUTES old), the messages or the bookings of a date range. Downloaded by a
 * plain form.
 */
import { Hono } from 'hono';
import { z } from '../../../shared/zod';
import { bookingsCsv } from '../bookings';
import { exportDownload, messagesCsv, waiversCsv } from '../exports';
import { filtersQuery } from '../filters';
import { freshSignInNeeded, query, signedIn, type DeskEnv } from '../router';

export const csvExports = new Hono<DeskEnv>()
  .get(
    '/waivers',
    signedIn(),
    query(filtersQuery({ health: z.string().optional() })),
    async (c) => {
      const { filters, health } = c.req.valid('query');
      const withHealth = health === 'yes';
      if (withHealth && !c.var.staff.fresh) return freshSignInNeeded(c);
      const csv = await waiversCsv(filters, withHealth);
      return exportDownload(c.var.staff, 'waivers', filters, csv, { health: withHealth });
    },
  )
  .get('/messages', signedIn(), query(filtersQuery({})), async (c) => {
    const { filters } = c.req.valid('query');
    return exportDownload(c.var.staff, 'messages', filters, await messagesCsv(filters));
  })
  .get('/bookings', signedIn(), query(filtersQuery({})), async (c) => {
    const { filters } = c.req.valid('query');
    return exportDownload(c.var.staff, 'bookings', filters, await bookingsCsv(filters));
  });
