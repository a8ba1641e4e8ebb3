import type { Config } from '@netlify/functions';
import { logAccess } from '../src/server/records/access-log';
import { download, deskFunction } from '../src/server/records/endpoint';
import { exportName, messagesCsv, waiversCsv } from '../src/server/records/exports';
import { readFilters } from '../src/server/records/filters';

export const config: Config = {
  path: ['/api/records/export/waivers', '/api/records/export/messages'],
};

const CSV = 'text/csv; charset=utf-8';

/** CSV of the waivers (health columns only when asked for) or the messages of a date range. */
export default deskFunction([
  {
    method: 'GET',
    path: '/api/records/export/waivers',
    async handle({ url, staff }) {
      const read = readFilters(url);
      if ('problem' in read) return read.problem;
      const { from, to, tz } = read.filters;
      const health = url.searchParams.get('health') === 'yes';
      const { csv, rows } = await waiversCsv(read.filters, health);
      await logAccess(staff, {
        action: 'export-waivers',
        detail: { rows, from: from ?? null, to: to ?? null, health },
      });
      return download(csv, CSV, exportName('waivers', tz));
    },
  },
  {
    method: 'GET',
    path: '/api/records/export/messages',
    async handle({ url, staff }) {
      const read = readFilters(url);
      if ('problem' in read) return read.problem;
      const { from, to, tz } = read.filters;
      const { csv, rows } = await messagesCsv(read.filters);
      await logAccess(staff, {
        action: 'export-messages',
        detail: { rows, from: from ?? null, to: to ?? null },
      });
      return download(csv, CSV, exportName('messages', tz));
    },
  },
]);
