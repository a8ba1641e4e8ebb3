/**
 * The retention rules: what the daily retention run removes, and after how long. One entry per
 * kind of record; a feature that stores a new kind of record (a mailing list, a re-sign
 * request) adds one entry here, with its keeping time in content/retention.yaml.
 *
 * An entry says what it removes in words (the desk's preview, the tombstone), which keeping time
 * of content/retention.yaml applies and its default, and which rows are past it at a cutoff: one
 * predicate, counted for the preview and deleted by the run, so the preview is what the run
 * does. Nothing another kept record still needs goes: a waiver keeps its PDF and its mails'
 * records as long as it is kept, and they go with it.
 *
 * The run applies the rules in this order, in one transaction; each sees what the ones before it
 * left (the mail records go before the messages they are about, so a mail's record is counted
 * under mail records in the preview and in the run alike).
 */
import { BOOKING_RULES } from '../booking/retention';
import { CLASS_RULES } from '../classes/retention';
import { mailFilesBefore, removeMailFilesBefore } from '../platform/mail';
import { longestRateLimitWindow } from '../platform/settings';
import { kindsAbout } from '../mail-kinds';
import { rowsOf, type RetentionRule } from './rows';

export type { RetentionRule };

export const RETENTION_RULES: readonly RetentionRule[] = [
  rowsOf({
    name: 'spamMessages',
    period: 'spam',
    keep: '30 days',
    what: ['message taken for spam', 'messages taken for spam'],
    from: 'from arrival',
    table: 'contact_messages',
    where: 't.spam_reason IS NOT NULL AND t.created_at < $1',
    mailsOf: 'message',
  }),
  rowsOf({
    name: 'spamWaivers',
    period: 'spam',
    keep: '30 days',
    what: ['waiver taken for spam', 'waivers taken for spam'],
    from: 'from arrival',
    table: 'waivers',
    where: 't.spam_reason IS NOT NULL AND t.created_at < $1',
    // Its stored PDF (one made from the desk) goes with it: waiver_pdfs cascades.
    mailsOf: 'waiver',
  }),
  rowsOf({
    name: 'mailRecords',
    period: 'mailRecords',
    keep: '1 year',
    what: ['record of an e-mail', 'records of e-mails'],
    from: 'from sending (or giving up)',
    table: 'mail_outbox',
    // Mail still owed stays; so do the records of a kept waiver's mails. A mail held back or
    // retired (no longer owed) counts from then.
    where: `COALESCE(t.sent_at, t.failed_at, t.retired_at,
                     CASE WHEN t.skipped IS NOT NULL THEN t.created_at END) < $1
            AND NOT (t.kind = ANY($2::text[])
                     AND EXISTS (SELECT 1 FROM waivers w WHERE w.id::text = split_part(t.ref, ':', 1)))`,
    params: () => [kindsAbout('waiver')],
  }),
  rowsOf({
    // A request to sign a new version of the waiver (who was asked, when): a record of a mail,
    // kept as long. It goes sooner with the waiver it was made from (it cascades).
    name: 'reSignRequests',
    period: 'mailRecords',
    keep: '1 year',
    what: ['request to sign the updated waiver', 'requests to sign the updated waiver'],
    from: 'from the request',
    table: 'waiver_resign_requests',
    where: 't.created_at < $1',
  }),
  rowsOf({
    name: 'messages',
    period: 'messages',
    keep: '2 years',
    what: ['message', 'messages'],
    from: 'from arrival',
    table: 'contact_messages',
    where: 't.spam_reason IS NULL AND t.created_at < $1',
    mailsOf: 'message',
  }),
  ...BOOKING_RULES,
  ...CLASS_RULES,
  rowsOf({
    name: 'listPending',
    period: 'listPending',
    keep: '30 days',
    what: ['Get Notified sign-up never confirmed', 'Get Notified sign-ups never confirmed'],
    from: 'from the last sign-up',
    table: 'list_subscribers',
    // Its confirmations cascade; its mails' refs start with its id.
    where: 't.confirmed_at IS NULL AND t.unsubscribed_at IS NULL AND t.signed_up_at < $1',
    mailsOf: 'subscriber',
  }),
  rowsOf({
    name: 'listUnsubscribed',
    period: 'listUnsubscribed',
    keep: '1 year',
    what: ['unsubscribed Get Notified address', 'unsubscribed Get Notified addresses'],
    from: 'from unsubscribing (or a later sign-up)',
    table: 'list_subscribers',
    where: 't.unsubscribed_at IS NOT NULL AND GREATEST(t.unsubscribed_at, t.signed_up_at) < $1',
    mailsOf: 'subscriber',
  }),
  rowsOf({
    name: 'listConfirmations',
    period: 'listPending',
    keep: '30 days',
    what: ['used or expired confirmation link', 'used or expired confirmation links'],
    from: 'from its expiry',
    table: 'list_confirmations',
    // A confirmed address keeps the wording it agreed to on its own row.
    where: 't.expires_at < $1',
  }),
  rowsOf({
    name: 'waivers',
    period: 'waivers',
    keep: '7 years',
    what: ['signed waiver', 'signed waivers'],
    from: "from the participant's last signing",
    table: 'waivers',
    // Every waiver of a participant (an e-mail address, in any case) whose latest is past it;
    // its PDF goes with it (waiver_pdfs cascades), and its mails' records.
    where: `t.spam_reason IS NULL AND lower(t.email) IN (
              SELECT lower(email) FROM waivers WHERE spam_reason IS NULL
               GROUP BY lower(email) HAVING max(created_at) < $1)`,
    mailsOf: 'waiver',
  }),
  rowsOf({
    name: 'signInLinks',
    period: 'signInLinks',
    keep: '1 day',
    what: ['desk sign-in link', 'desk sign-in links'],
    from: 'from expiry',
    table: 'staff_sign_in_links',
    where: 't.expires_at < $1',
    key: 't.token_sha256',
  }),
  rowsOf({
    name: 'sessions',
    period: 'sessions',
    keep: '1 day',
    what: ['desk session', 'desk sessions'],
    from: 'from their end',
    table: 'staff_sessions',
    where: 'LEAST(t.expires_at, COALESCE(t.revoked_at, t.expires_at)) < $1',
  }),
  rowsOf({
    name: 'rateLimits',
    period: 'rateLimits',
    keep: '1 day',
    what: ['rate-limit count', 'rate-limit counts'],
    from: 'from the end of their window',
    table: 'rate_limit_hits',
    // A window ends at most the longest configured window after it opened.
    where: 't.window_start + make_interval(secs => $2::int) < $1',
    params: () => [longestRateLimitWindow()],
    key: 't.bucket',
  }),
  {
    name: 'mailFiles',
    period: 'mailFiles',
    keep: '7 days',
    what: ['e-mail file in the local mail folder', 'e-mail files in the local mail folder'],
    from: 'from writing',
    count: async (_db, cutoff) => (await mailFilesBefore(cutoff)).length,
    remove: (_tx, cutoff) => removeMailFilesBefore(cutoff),
    afterCommit: true,
  },
];
