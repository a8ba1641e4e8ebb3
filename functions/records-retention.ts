import type { Config } from '@netlify/functions';
import { deskAnswer, deskFunction } from '../src/server/records/endpoint';
import { retentionPreview } from '../src/server/records/retention';

export const config: Config = { path: '/api/records/retention' };

/** The desk's retention panel: when the next run is, and what it will remove. Read-only. */
export default deskFunction(config, [
  {
    GET: async () => deskAnswer(await retentionPreview()),
  },
]);
