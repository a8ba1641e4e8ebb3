import type { Config } from '@netlify/functions';
import { deskFunction } from '../src/server/records/endpoint';
import { exportDownload, messagesCsv, waiversCsv } from '../src/server/records/exports';
import { withFilters } from '../src/server/records/filters';

export const config: Config = {
  path: ['/api/records/export/waivers', '/api/records/export/messages'],
};

/** CSV of the waivers (health columns only when asked for) or the messages of a date range. */
export default deskFunction(config, [
  {
    GET: withFilters(async (filters, { url, staff }) => {
      const health = url.searchParams.get('health') === 'yes';
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
