import type { Config } from '@netlify/functions';
import { accessLog } from '../src/server/records/access-log';
import { deskAnswer, deskFunction } from '../src/server/records/endpoint';
import { withFilters } from '../src/server/records/filters';

export const config: Config = { path: '/api/records/log' };

/** The access log: who did what to which record, newest first. */
export default deskFunction(config, [
  {
    GET: withFilters(async (filters) => deskAnswer(await accessLog(filters.after))),
  },
]);
