import { randomUUID } from 'node:crypto';
import type { Erased, ErasurePreview } from '../../shared/desk-api';
import { normalEmail } from '../../shared/email';
import type { Staff } from '../auth/sessions';
import { query, transaction, type Queryable } from '../platform/db';
import { sqlNow } from '../platform/clock';
import { removeMailFiles } from '../platform/mail';
import { logAccess } from './access-log';
import { kindsAbout } from '../mail-kinds';
import { bookingsOfPerson, deleteBookings } from '../bookings/kinds';

/**
 * A participant's right to be forgotten: everything held about one e-mail address (its waivers
 * with their stored PDFs, its messages, its consultations and sessions, its class places and
 * waitlist entries, its row on the Get Notified list with its confirmations, the re-sign requests
 * made from its waivers, the mails queued or sent about them in mail_outbox) is deleted in one
 * transaction, together with one access-log line that says what went (counts and record ids),
 * when and by whom, and nothing of what it held, and a tombstone (`erasure_tombstones`: the ids
 * alone) from which a restore of an older backup makes the erasure again (after-restore.ts).
 * Waiver texts stay: they are the studio's, not the participant's. The files of those mails in
 * the local mail folder (when the site runs without a mail server) go once the deletion has
 * committed. Mail already delivered to an inbox is beyond the site's reach.
 *
 * An upcoming booking goes with the rest: its row is deleted, so its time or place is free again and
 * it leaves the instructor's subscribed calendar; no cancellation is mailed (there is nothing left
 * to compose it from, and the person asked to hear no more). The preview lists those to come, so
 * the instructor knows which to take out of her own calendar if she added the invite.
 */

/**
 * The outbox's mails about a person's records, matched by kind and the record's id (a message's
 * ref is its id; the others' refs start with it, `id:…`): one condition, for the erasure's
 * preview and for the erasure itself. Parameters $1–$8, from `mailsAbout`.
 */
const MAILS_ABOUT = `(kind = ANY($1::text[]) AND split_part(ref, ':', 1) = ANY($2::text[]))
   OR (kind = ANY($3::text[]) AND ref = ANY($4::text[]))
   OR (kind = ANY($5::text[]) AND split_part(ref, ':', 1) = ANY($6::text[]))
   OR (kind = ANY($7::text[]) AND split_part(ref, ':', 1) = ANY($8::text[]))`;

function mailsAbout(records: {
  waivers: string[];
  messages: string[];
  bookings: string[];
  subscribers: string[];
}): string[][] {
  return [
    kindsAbout('waiver'),
    records.waivers,
    kindsAbout('message'),
    records.messages,
    kindsAbout('booking'),
    records.bookings,
    kindsAbout('subscriber'),
    records.subscribers,
  ];
}

/** What an erasure of `email` would delete, for the instructor to check first. */
export async function previewErasure(email: string): Promise<ErasurePreview> {
  const address = normalEmail(email);
  const waivers = await query<{ id: string; created_at: Date }>(
    `SELECT id, created_at FROM waivers WHERE lower(email) = $1 ORDER BY created_at DESC`,
    [address],
  );
  const messages = await query<{ id: string | number; created_at: Date }>(
    `SELECT id, created_at FROM contact_messages WHERE lower(email) = $1 ORDER BY created_at DESC`,
    [address],
  );
  // Consultations, sessions (private, in-home), class places and waitlist entries alike:
  // bookings, each kind's own (bookings/kinds.ts).
  const bookings = await transaction((tx) => bookingsOfPerson(tx, address, false));
  const subscribers = await query<{ id: string | number }>(
    `SELECT id FROM list_subscribers WHERE lower(email) = $1`,
    [address],
  );
  const ids = (rows: { id: string | number }[]) => rows.map((row) => String(row.id));
  const [mails] = await query<{ n: number }>(
    `SELECT count(*)::int AS n FROM mail_outbox WHERE ${MAILS_ABOUT}`,
    mailsAbout({
      waivers: ids(waivers),
      messages: ids(messages),
      bookings: ids(bookings),
      subscribers: ids(subscribers),
    }),
  );
  const listed = (row: { id: string | number; created_at: Date }) => ({
    id: String(row.id),
    createdAt: new Date(row.created_at).toISOString(),
  });
  return {
    waivers: waivers.map(listed),
    messages: messages.map(listed),
    bookings: bookings.map((row) => ({
      id: row.id,
      start: new Date(row.starts_at).toISOString(),
      upcoming: row.upcoming,
    })),
    listed: subscribers.length > 0,
    mails: mails?.n ?? 0,
  };
}

/** The records of one erasure, by id: what it deletes, and what its tombstone keeps. */
export interface ErasedIds {
  waivers: string[];
  messages: string[];
  bookings: string[];
  subscribers: string[];
}

/**
 * Deletes the records `ids` names, with their PDFs, their re-sign requests and confirmations
 * (which cascade) and the outbox's mails about them, in the caller's transaction: an erasure,
 * and a restore making an erasure again (after-restore.ts). The ids of the mails deleted, and
 * how many PDFs went.
 */
export async function deleteRecords(
  tx: Queryable,
  ids: ErasedIds,
): Promise<{ mails: string[]; pdfs: number }> {
  const mails = await tx.query(
    `DELETE FROM mail_outbox WHERE ${MAILS_ABOUT} RETURNING id`,
    mailsAbout(ids),
  );
  const pdfs = await tx.query(
    `DELETE FROM waiver_pdfs WHERE waiver_id = ANY($1::uuid[]) RETURNING waiver_id`,
    [ids.waivers],
  );
  // Its re-sign requests go with its waivers (ON DELETE CASCADE), in this transaction.
  await tx.query(`DELETE FROM waivers WHERE id = ANY($1::uuid[])`, [ids.waivers]);
  await tx.query(`DELETE FROM contact_messages WHERE id = ANY($1::bigint[])`, [ids.messages]);
  await deleteBookings(tx, ids.bookings);
  // Its confirmations go with it (ON DELETE CASCADE).
  await tx.query(`DELETE FROM list_subscribers WHERE id = ANY($1::bigint[])`, [ids.subscribers]);
  return {
    mails: (mails.rows as { id: string | number }[]).map((row) => String(row.id)),
    pdfs: pdfs.rows.length,
  };
}

/**
 * Deletes everything held about `email`, and leaves its tombstone (the ids, nothing of what they
 * held) for a restore of an older backup to make the erasure again; what was deleted, in counts.
 */
export async function eraseParticipant(email: string, staff: Staff): Promise<Erased> {
  const address = normalEmail(email);
  const { erased, mailIds } = await transaction(async (tx) => {
    const ids = async (sql: string) =>
      ((await tx.query(sql, [address])).rows as { id: string | number }[]).map((row) =>
        String(row.id),
      );
    const waivers = await ids(`SELECT id FROM waivers WHERE lower(email) = $1 FOR UPDATE`);
    const messages = await ids(
      `SELECT id FROM contact_messages WHERE lower(email) = $1 FOR UPDATE`,
    );
    const bookings = (await bookingsOfPerson(tx, address, true)).map((row) => row.id);
    const subscribers = await ids(
      `SELECT id FROM list_subscribers WHERE lower(email) = $1 FOR UPDATE`,
    );
    const { mails, pdfs } = await deleteRecords(tx, { waivers, messages, bookings, subscribers });
    const all = [waivers, messages, bookings, subscribers];
    if (all.some((list) => list.length > 0)) {
      await tx.query(
        `INSERT INTO erasure_tombstones
           (id, erased_at, waiver_ids, message_ids, booking_ids, subscriber_ids)
         VALUES ($1, ${sqlNow()}, $2::uuid[], $3::bigint[], $4::uuid[], $5::bigint[])`,
        [randomUUID(), ...all],
      );
    }
    const erased: Erased = {
      waivers: waivers.length,
      messages: messages.length,
      bookings: bookings.length,
      subscriptions: subscribers.length,
      mails: mails.length,
      pdfs,
    };
    await logAccess(
      staff,
      {
        action: 'erase',
        detail: {
          ...erased,
          waiverIds: waivers,
          messageIds: messages,
          bookingIds: bookings,
          mailIds: mails,
        },
      },
      tx,
    );
    return { erased, mailIds: mails };
  });
  await removeMailFiles(mailIds);
  return erased;
}
