import type { Config } from '@netlify/functions';
import { DatabaseUnavailableError } from '../src/server/platform/db';
import { json } from '../src/server/request/responses';
import { applyRetention, retentionInstant } from '../src/server/retention/run';

/**
 * The daily retention run (src/server/retention/): removes what is past its keeping time
 * (content/retention.yaml) and leaves a tombstone in the access log. Netlify runs it at 09:00 UTC
 * (1 or 2 AM in Portland); `npm start` runs it at the same minute. The schedule is this literal,
 * which Netlify reads from the source, and RETENTION_SCHEDULE in src/server/retention/schedule.ts
 * (a test checks they agree).
 */
export const config: Config = { schedule: '0 9 * * *' };

export default async (): Promise<Response> => {
  try {
    const removed = await applyRetention(retentionInstant());
    const gone = removed.filter((entry) => entry.count > 0);
    console.info(
      gone.length > 0
        ? `retention: removed ${gone.map((entry) => `${entry.count} ${entry.name}`).join(', ')}`
        : 'retention: nothing past its keeping time',
    );
    return json({
      success: true,
      removed: Object.fromEntries(removed.map((entry) => [entry.name, entry.count])),
    });
  } catch (error) {
    const outage = error instanceof DatabaseUnavailableError;
    // The error's name, or for a schedule that cannot be read, its sentence (it names the file).
    const said = outage ? 'the database is unavailable' : (error as Error)?.message;
    console.error(`retention: nothing removed: ${said}`);
    return json({ success: false, error: 'The retention run did not finish.' }, outage ? 503 : 500);
  }
};
