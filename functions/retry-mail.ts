import type { Config } from '@netlify/functions';
import { outbox } from '../src/server/mail-kinds';
import { DatabaseUnavailableError } from '../src/server/platform/db';
import { json } from '../src/server/request/responses';

/**
 * Sends the mail still owed (src/server/platform/outbox.ts): every five minutes on Netlify, and
 * every `OUTBOX_INTERVAL_MS` under `npm start`. Rows that fail again wait longer each time.
 */
export const config: Config = { schedule: '*/5 * * * *' };

export default async (): Promise<Response> => {
  try {
    // A scheduled function has 30 s: start no new round after 20 s.
    const summary = await outbox.drain({ budgetMs: 20_000 });
    if (summary.sent + summary.retrying + summary.failed + summary.retired > 0) {
      console.info(
        `retry-mail: sent ${summary.sent}, will retry ${summary.retrying}, gave up on ${summary.failed}, no longer owed ${summary.retired}`,
      );
    }
    return json({ success: true, ...summary });
  } catch (error) {
    const outage = error instanceof DatabaseUnavailableError;
    console.error(`retry-mail: ${outage ? 'the database is unavailable' : (error as Error)?.name}`);
    return json({ success: false, error: 'The outbox could not be read.' }, outage ? 503 : 500);
  }
};
