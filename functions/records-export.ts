import type { Config } from '@netlify/functions';
import { deskFunction, freshSignInNeeded } from '../src/server/records/endpoint';
import { exportDownload, messagesCsv, waiversCsv } from '../src/server/records/exports';
import { withFilters } from '../src/server/records/filters';

export const config: Config = {
  path: ['/api/records/export/waivers', '/api/records/export/messages'],
};

/**
 * CSV of the waivers (health columns only when asked for, with a sign-in under
 * FRESH_SIGN_IN_MINUTES old) or the messages of a date range.
 */
export default deskFunction(config, [
  {
    GET: withFilters(async (filters, { url, staff }) => {
      const health = url.searchParams.get('health') === 'yes';
      if (health && !staff.fresh) return freshSignInNeeded();
      const csv = await waiversCsv(filters, health);
      return exportDownload(staff, 'waivers', filters, csv, { health });
    }),
  },
  {
    GET: withFilters(async (filters, { staff }) =>
      exportDownload(staff, 'messages', filters, await messagesCsv(filters)),
    ),
  },
]);
