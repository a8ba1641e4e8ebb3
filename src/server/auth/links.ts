import { LINK_MINUTES } from '../../shared/desk-api';
import type { Queryable } from '../platform/db';
import { query } from '../platform/db';
import { mailBody } from '../mail/blocks';
import type { Mail } from '../platform/mail';
import { siteOrigin } from '../platform/hosting';
import { siteFacts } from '../platform/site-facts';
import { isToken, newToken, tokenHash } from '../platform/tokens';
import { sqlNow } from '../platform/clock';
import { PAGES } from '../../shared/site-paths';

/**
 * Passwordless sign-in: a link to `/records/sign-in#token=...`, mailed to a staff address,
 * good for one use within LINK_MINUTES. The token rides in the URL fragment, which browsers never
 * send to a server (no access log, no Referer holds it), and the page that reads it asks for a
 * click before it spends it, so a mail scanner that opens every link signs nobody in.
 */

/** Stores a new link for `email` and returns its token (the only copy outside the mail). */
export async function createSignInLink(email: string): Promise<string> {
  const token = newToken();
  await query(
    `INSERT INTO staff_sign_in_links (token_sha256, email, expires_at)
     VALUES ($1, $2, ${sqlNow()} + make_interval(mins => $3::int))`,
    [tokenHash(token), email, LINK_MINUTES],
  );
  // Links long dead go with the daily retention run (src/server/retention/rules.ts).
  return token;
}

/**
 * Spends a link inside the caller's transaction: the address it was made for, or `undefined`
 * when the token is unknown, used or expired. One atomic update, so two clicks sign in once.
 */
export async function useSignInLink(tx: Queryable, token: unknown): Promise<string | undefined> {
  if (!isToken(token)) return undefined;
  const { rows } = await tx.query(
    `UPDATE staff_sign_in_links SET used_at = ${sqlNow()}
      WHERE token_sha256 = $1 AND used_at IS NULL AND expires_at > ${sqlNow()}
  RETURNING email`,
    [tokenHash(token)],
  );
  return (rows[0] as { email: string } | undefined)?.email;
}

/** The mail with a sign-in link, which points at the site's own address (`siteOrigin()`). */
export function signInMail(to: string, token: string): Mail {
  const studio = siteFacts().name;
  return {
    to,
    // Its file in the local mail folder is named by the link's row (never by the link itself).
    record: { kind: 'sign-in', key: tokenHash(token).slice(0, 16) },
    subject: `Your sign-in link for the ${studio} records desk`,
    ...mailBody(
      [
        `Someone (hopefully you) asked to sign in to the ${studio} records desk.`,
        {
          text: `Open this link and press "Sign in". It works once, within ${LINK_MINUTES} minutes:`,
          link: `${siteOrigin()}${PAGES.deskSignIn}#token=${token}`,
          label: 'Sign in to the records desk',
        },
      ],
      ['If you did not ask for it, ignore this e-mail: nobody can sign in without it.'],
    ),
  };
}
