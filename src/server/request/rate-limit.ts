import { clientFingerprint } from '../platform/crypto';
import { query } from '../platform/db';
import type { RateLimit } from '../platform/settings';
import { sqlNow } from '../platform/clock';

export interface RateLimitVerdict {
  allowed: boolean;
  /** Seconds until the current window ends and the client may send again. */
  retryAfterSeconds: number;
}

/**
 * Counts one request of `clientIp` in `bucket` and says whether it is within `rule`. A fixed
 * window counted by one atomic upsert: concurrent requests on any instance cannot both slip
 * through as the last allowed one. Rejected requests count too, so a flood stays shut out.
 */
export async function countRequest(
  bucket: string,
  clientIp: string,
  rule: RateLimit,
): Promise<RateLimitVerdict> {
  const [row] = await query<{ hits: number; retry_after: number }>(
    `INSERT INTO rate_limit_hits AS r (bucket, client_hash, window_start)
     VALUES ($1, $2, to_timestamp(floor(extract(epoch FROM ${sqlNow()}) / $3::int) * $3::int))
     ON CONFLICT (bucket, client_hash, window_start) DO UPDATE SET hits = r.hits + 1
     RETURNING r.hits,
       ceil(extract(epoch FROM r.window_start + make_interval(secs => $3::int) - ${sqlNow()}))::int
         AS retry_after`,
    [bucket, clientFingerprint(clientIp), rule.windowSeconds],
  );
  // Windows a day old go with the daily retention run (src/server/retention/rules.ts).
  return {
    allowed: row.hits <= rule.limit,
    retryAfterSeconds: Math.max(1, Number(row.retry_after)),
  };
}
