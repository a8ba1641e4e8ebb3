import type { SessionInfo } from '../../shared/desk-api';
import { query } from '../platform/db';
import { sqlNow } from '../platform/clock';

/** The desk's first screen in numbers. */
export async function counts(): Promise<SessionInfo['counts']> {
  const [row] = await query<SessionInfo['counts']>(
    `SELECT (SELECT count(*) FROM waivers)::int AS "waivers",
            (SELECT count(*) FROM waivers
              WHERE created_at > ${sqlNow()} - interval '7 days')::int AS "waiversThisWeek",
            (SELECT count(*) FROM contact_messages WHERE spam_reason IS NULL)::int AS "messages",
            (SELECT count(*) FROM contact_messages WHERE spam_reason IS NOT NULL)::int AS "spam"`,
  );
  return row ?? { waivers: 0, waiversThisWeek: 0, messages: 0, spam: 0 };
}
