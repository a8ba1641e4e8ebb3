import { isIP } from 'node:net';
import { clientFingerprint } from '../platform/crypto';
import { query, type Queryable } from '../platform/db';
import type { RateLimit } from '../platform/settings';
import { sqlNow } from '../platform/clock';

export interface RateLimitVerdict {
  allowed: boolean;
  /** Seconds until the current window ends and the client may send again. */
  retryAfterSeconds: number;
}

/** The eight 16-bit groups of an IPv6 address (written in any of its forms), or `undefined`. */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const v4 = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text)?.[1];
  if (v4) {
    const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -v4.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parts = (side: string) => (side ? side.split(':').map((group) => parseInt(group, 16)) : []);
  const start = parts(head);
  const end = tail === undefined ? [] : parts(tail);
  const missing = 8 - start.length - end.length;
  if (missing < 0 || (tail === undefined && missing !== 0)) return undefined;
  const groups = [...start, ...Array<number>(missing).fill(0), ...end];
  return groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff)
    ? groups
    : undefined;
}

/**
 * The client as the rate limits count it: an IPv4 address as it is, an IPv6 address by its /64
 * network (`2001:db8:a:b::/64`). A home or a server is given a whole /64 and can pick any of its
 * 2^64 addresses, so counting single IPv6 addresses would count nothing. An IPv4 address written
 * as IPv6 (`::ffff:192.0.2.7`) is that IPv4 address. Anything else (`unknown`) is kept as it is.
 */
export function clientNetwork(ip: string): string {
  const address = ip.trim().replace(/%.*$/, '');
  if (isIP(address) !== 6) return address;
  const groups = ipv6Groups(address);
  if (!groups) return address;
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}

/**
 * The network a client is on, wider than `clientNetwork`: an IPv4 address's /24
 * (`192.0.2.0/24`), an IPv6 address's /56 (`2001:db8:a:b00::/56`, what a home is often given).
 * What one household, office or NAT holds in common, for caps that a visitor could otherwise
 * spread over its addresses. Anything else is kept as it is.
 */
export function wideNetwork(ip: string): string {
  const address = clientNetwork(ip);
  if (isIP(address) === 4) return `${address.split('.').slice(0, 3).join('.')}.0/24`;
  const groups = ipv6Groups(ip.trim().replace(/%.*$/, ''));
  if (!groups || isIP(ip.trim().replace(/%.*$/, '')) !== 6) return address;
  return `${groups
    .slice(0, 4)
    .map((group, i) => (i === 3 ? group & 0xff00 : group).toString(16))
    .join(':')}::/56`;
}

/**
 * Counts one request of `key` in `bucket` and says whether it is within `rule`. A fixed window
 * counted by one atomic upsert: concurrent requests on any instance cannot both slip through as
 * the last allowed one. Rejected requests count too, so a flood stays shut out. The key (a
 * client's network, an e-mail address) is stored only as a keyed hash. `db` is the caller's open
 * transaction, when the count belongs to it.
 */
export async function countRequest(
  bucket: string,
  key: string,
  rule: RateLimit,
  db?: Queryable,
): Promise<RateLimitVerdict> {
  const run = async <T>(sql: string, params: unknown[]) =>
    db ? ((await db.query(sql, params)).rows as T[]) : query<T>(sql, params);
  const [row] = await run<{ hits: number; retry_after: number }>(
    `INSERT INTO rate_limit_hits AS r (bucket, client_hash, window_start)
     VALUES ($1, $2, to_timestamp(floor(extract(epoch FROM ${sqlNow()}) / $3::int) * $3::int))
     ON CONFLICT (bucket, client_hash, window_start) DO UPDATE SET hits = r.hits + 1
     RETURNING r.hits,
       ceil(extract(epoch FROM r.window_start + make_interval(secs => $3::int) - ${sqlNow()}))::int
         AS retry_after`,
    [bucket, clientFingerprint(key), rule.windowSeconds],
  );
  // Windows a day old go with the daily retention run (src/server/retention/rules.ts).
  return {
    allowed: row.hits <= rule.limit,
    retryAfterSeconds: Math.max(1, Number(row.retry_after)),
  };
}

/** Counts one request of the client at `ip` (by its network: `clientNetwork`) in `bucket`. */
export function countClient(
  bucket: string,
  ip: string,
  rule: RateLimit,
): Promise<RateLimitVerdict> {
  return countRequest(bucket, clientNetwork(ip), rule);
}

/**
 * A mail to an address nobody has verified (typed into a form): one address gets at most `rule`
 * of them, counted under `bucket` in the caller's transaction (`tx`: what is not stored spends
 * nothing) by the address as the caller normalises it (`normalEmail`: any case). Past it the mail is held back (`'recipient-limit'`, as
 * the outbox records it); the submission itself is stored and answered as always.
 */
export async function recipientLimit(
  tx: Queryable,
  bucket: string,
  address: string,
  rule: RateLimit,
): Promise<'recipient-limit' | undefined> {
  const verdict = await countRequest(bucket, address, rule, tx);
  return verdict.allowed ? undefined : 'recipient-limit';
}
