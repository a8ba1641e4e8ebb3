/**
 * Re-sign requests: after a material new version of the waiver text, the studio asks those whose
 * latest waiver is under an older one to sign again. One request per person (lower(email)) per
 * version, however often it is asked for (a unique constraint); its mail goes through the outbox
 * (kind `waiver-re-sign`, ref `<their latest waiver's id>:<version>`). The link in it opens the
 * waiver form with their name and address filled in: `/waiver#re-sign=<token>`, the token in the
 * fragment (never sent to a server or a log by the browser), which the form sends in the body
 * of a POST (never in a path or a query, which reach server and CDN logs): 32 random bytes the
 * row keeps as its SHA-256 and sealed (platform/tokens.ts), so a mail composed later carries the same
 * link, whatever key the site uses by then. Following it changes nothing. It works for
 * WAIVER_RE_SIGN_DAYS after the request, and is spent once that address signs a waiver.
 */
import { randomUUID } from 'node:crypto';
import { sqlNow } from '../platform/clock';
import { query, type Queryable } from '../platform/db';
import { readSetting } from '../platform/settings';
import { siteOrigin } from '../platform/hosting';
import { mailBody } from '../mail/blocks';
import type { Mail } from '../platform/mail';
import { nothingToSend, type NothingToSend } from '../platform/outbox';
import { siteFacts } from '../platform/site-facts';
import { isToken, newStoredToken, openStoredToken, tokenHash } from '../platform/tokens';
import { RE_SIGN_HASH } from '../../shared/waiver';
import { statusOf, waiverVersions } from './versions';
import { PAGES } from '../../shared/site-paths';

/** The field a request's sealed token is bound to, with the request's id. */
export const RE_SIGN_TOKEN_FIELD = 'waiverReSignToken';

const reSignLink = (id: string, stored: { sealed: string; sha256: string }) =>
  `${siteOrigin()}${PAGES.waiver}${RE_SIGN_HASH}${openStoredToken(RE_SIGN_TOKEN_FIELD, id, stored)}`;

/** Records a request for `waiverId`'s signer under `version`; `undefined` if there is one. */
export async function insertReSignRequest(
  tx: Queryable,
  request: { waiverId: string; email: string; version: string; staff: string },
): Promise<string | undefined> {
  const id = randomUUID();
  const token = newStoredToken(RE_SIGN_TOKEN_FIELD, id);
  const { rows } = await tx.query(
    `INSERT INTO waiver_resign_requests
       (id, email_key, version, waiver_id, token_sha256, token_sealed, requested_by, created_at,
        expires_at)
     VALUES ($1, lower($2), $3, $4, $5, $6, $7, ${sqlNow()},
             ${sqlNow()} + make_interval(days => $8::int))
     ON CONFLICT (email_key, version) DO NOTHING
     RETURNING id`,
    [
      id,
      request.email,
      request.version,
      request.waiverId,
      token.sha256,
      token.sealed,
      request.staff,
      readSetting('WAIVER_RE_SIGN_DAYS'),
    ],
  );
  return (rows[0] as { id: string } | undefined)?.id;
}

/** What a re-sign link opens: who it is for and the version they are asked to sign. */
export interface ReSignSigner {
  firstName: string;
  lastName: string;
  email: string;
  version: string;
  /** What changed in that version, in the studio's words (`changes` in content/waiver.md). */
  changes?: string;
}

/**
 * Who a re-sign link is for (what the form is filled in with, never their health information),
 * `'spent'` once that address has signed since, `'expired'` past its days, or `undefined` for
 * no such link.
 */
export async function reSignFor(
  token: string,
): Promise<ReSignSigner | 'spent' | 'expired' | undefined> {
  if (!isToken(token)) return undefined;
  const [row] = await query<{
    first_name: string;
    last_name: string;
    email: string;
    version: string;
    spent: boolean;
    expired: boolean;
  }>(
    `SELECT w.first_name, w.last_name, w.email, r.version, r.used_at IS NOT NULL AS spent,
            r.expires_at <= ${sqlNow()} AS expired
       FROM waiver_resign_requests r JOIN waivers w ON w.id = r.waiver_id
      WHERE r.token_sha256 = $1`,
    [tokenHash(token)],
  );
  if (!row) return undefined;
  if (row.spent) return 'spent';
  if (row.expired) return 'expired';
  const changes = waiverVersions().versions.find((entry) => entry.version === row.version)?.changes;
  return {
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    version: row.version,
    ...(changes && { changes }),
  };
}

/**
 * Spends the open re-sign links of `email` in the caller's transaction (a waiver it signed is
 * being stored): a link mailed to that address opens nothing more.
 */
export async function spendReSignLinks(tx: Queryable, email: string): Promise<void> {
  await tx.query(
    `UPDATE waiver_resign_requests SET used_at = ${sqlNow()}
      WHERE email_key = lower($1) AND used_at IS NULL`,
    [email],
  );
}

/** The request mail for ref `<waiver id>:<version>`; no longer owed once they signed again. */
export async function reSignMail(ref: string): Promise<Mail | NothingToSend | undefined> {
  const split = ref.indexOf(':');
  const [waiverId, version] = [ref.slice(0, split), ref.slice(split + 1)];
  const [row] = await query<{
    id: string;
    first_name: string;
    email: string;
    token_sha256: string;
    token_sealed: string;
    closed: boolean;
  }>(
    `SELECT r.id, r.token_sha256, r.token_sealed, w.first_name, w.email,
            r.used_at IS NOT NULL OR r.expires_at <= ${sqlNow()} AS closed
       FROM waiver_resign_requests r JOIN waivers w ON w.id = r.waiver_id
      WHERE r.waiver_id = $1 AND r.version = $2`,
    [waiverId, version],
  );
  if (!row) return undefined;
  if (row.closed) return nothingToSend('its link is spent or expired');
  const [latest] = await query<{ created_at: Date; waiver_text_sha256: string }>(
    `SELECT created_at, waiver_text_sha256 FROM waivers
      WHERE lower(email) = lower($1) AND spam_reason IS NULL
      ORDER BY created_at DESC, id DESC LIMIT 1`,
    [row.email],
  );
  if (
    latest &&
    statusOf({ createdAt: new Date(latest.created_at), sha256: latest.waiver_text_sha256 }) ===
      'covered'
  ) {
    return nothingToSend('signed the version in force since');
  }
  return composeReSignMail({
    firstName: row.first_name,
    email: row.email,
    link: reSignLink(row.id, { sealed: row.token_sealed, sha256: row.token_sha256 }),
  });
}

export function composeReSignMail(to: { firstName: string; email: string; link: string }): Mail {
  const { name: studio, email: studioEmail } = siteFacts();
  return {
    to: to.email,
    replyTo: studioEmail,
    subject: `Please sign the updated liability waiver - ${studio}`,
    ...mailBody(
      [
        `Hello ${to.firstName},`,
        `${studio} has updated its liability waiver, and the changes matter for everyone who takes part, so I'm asking you to read and sign the new version before your next session.`,
        {
          text: 'It takes about 5 minutes. The link below opens the waiver with your name and e-mail address filled in:',
          link: to.link,
          label: 'Sign the updated waiver',
        },
        `If you have questions about the changes, reply to this e-mail or write to ${studioEmail}. Thank you!`,
      ],
      [`You get this e-mail because you signed a liability waiver for ${studio}.`],
    ),
  };
}
