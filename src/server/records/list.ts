/**
 * The Get Notified list on the desk: its counts, the events she can announce, announcing one,
 * the CSV export, and removing an address.
 *
 * **Which events.** The build writes the events still to come, in the words of their
 * announcement, to `list/events.json` (src/pages/list/events.json.ts), shipped with the
 * functions like the pages they fill in. That is the simplest sound source: the same content
 * files, read and formatted by the same code as the Events page (times in the event's zone, the
 * place, the price), with nothing parsed a second time here. The desk offers those not ended by
 * now; a new event is offered once the site has been rebuilt with it (as it is on the page).
 *
 * **Announcing** is once per event (`list_announcements_once`): in one transaction the
 * announcement is stored with what its mail says, and one outbox row per confirmed address is
 * queued (`<subscriber id>:<announcement id>`, one per kind and ref), due in turns of
 * LIST_SEND_RATE (e.g. 100 a minute), so a list of thousands goes at a pace the mail server
 * accepts. The outbox's senders then send what is due, each row once under its lease; a sender
 * that stops halfway leaves the rest due, and a mail server that is down gets them later, so
 * nobody is sent it twice and nobody is skipped. Each mail checks again when it is composed that
 * its address is still on the list.
 */
import type { ListCounts, ListEvent, ListOverview } from '../../shared/desk-api';
import { ANNOUNCEABLE_FILE, type AnnounceableEvent } from '../../shared/list';
import type { Staff } from '../auth/sessions';
import { normalEmail } from '../../shared/email';
import { outbox } from '../mail-kinds';
import { builtPage } from '../platform/built-pages';
import { now, sqlNow } from '../platform/clock';
import { query, transaction } from '../platform/db';
import { readSetting } from '../platform/settings';
import { unsubscribe } from '../list/store';
import { logAccess } from './access-log';
import { toCsv } from './csv';

/** The events of the build still to come at `at`. */
export function announceableEvents(at = now()): AnnounceableEvent[] {
  const { events } = JSON.parse(builtPage(ANNOUNCEABLE_FILE)) as { events: AnnounceableEvent[] };
  return events.filter((event) => Date.parse(event.endsAt) > at.getTime());
}

export async function listCounts(): Promise<ListCounts> {
  const [row] = await query<ListCounts>(
    `SELECT count(*) FILTER (WHERE confirmed_at IS NOT NULL AND unsubscribed_at IS NULL)::int
              AS confirmed,
            count(*) FILTER (WHERE confirmed_at IS NULL AND unsubscribed_at IS NULL)::int
              AS pending,
            count(*) FILTER (WHERE unsubscribed_at IS NOT NULL)::int AS unsubscribed
       FROM list_subscribers`,
  );
  return row ?? { confirmed: 0, pending: 0, unsubscribed: 0 };
}

/** The List screen: the counts, and each event to come with its announcement, if any. */
export async function listOverview(): Promise<ListOverview> {
  const events = announceableEvents();
  const announced = await query<{
    event_id: string;
    created_at: Date;
    recipients: number;
    sent: number;
  }>(
    `SELECT a.event_id, a.created_at, a.recipients,
            (SELECT count(*)::int FROM mail_outbox o
              WHERE o.kind = 'list-announcement' AND o.sent_at IS NOT NULL
                AND split_part(o.ref, ':', 2) = a.id::text) AS sent
       FROM list_announcements a WHERE a.event_id = ANY($1::text[])`,
    [events.map((event) => event.id)],
  );
  const byId = new Map(announced.map((row) => [row.event_id, row]));
  return {
    counts: await listCounts(),
    events: events.map((event): ListEvent => {
      const row = byId.get(event.id);
      return {
        id: event.id,
        title: event.title,
        when: event.when,
        place: event.place,
        announced: row
          ? {
              at: new Date(row.created_at).toISOString(),
              recipients: row.recipients,
              sent: row.sent,
            }
          : null,
      };
    }),
  };
}

export type AnnounceOutcome =
  { ok: true; recipients: number; lastDue: string } | { ok: false; why: 'unknown' | 'already' };

/** Sends `eventId`'s announcement to the confirmed list, once per event, paced. */
export async function announceEvent(eventId: string, staff: Staff): Promise<AnnounceOutcome> {
  const event = announceableEvents().find((candidate) => candidate.id === eventId);
  if (!event) return { ok: false, why: 'unknown' };
  const { limit, windowSeconds } = readSetting('LIST_SEND_RATE');
  return transaction(async (tx) => {
    const inserted = await tx.query(
      `INSERT INTO list_announcements (event_id, event, recipients, created_at, created_by)
       VALUES ($1, $2::jsonb, 0, ${sqlNow()}, $3)
       ON CONFLICT ON CONSTRAINT list_announcements_once DO NOTHING
       RETURNING id`,
      [event.id, JSON.stringify(event), staff.email],
    );
    const announcement = inserted.rows[0] as { id: string | number } | undefined;
    if (!announcement) return { ok: false, why: 'already' } as const;
    const id = String(announcement.id);
    const { rows } = await tx.query(
      `SELECT id FROM list_subscribers
        WHERE confirmed_at IS NOT NULL AND unsubscribed_at IS NULL ORDER BY id`,
    );
    const start = now().getTime();
    const mails = (rows as { id: string | number }[]).map((row, index) => {
      const turn = Math.floor(index / limit);
      return {
        ref: `${String(row.id)}:${id}`,
        notBefore: turn === 0 ? undefined : new Date(start + turn * windowSeconds * 1000),
      };
    });
    const queued = await outbox.enqueueMany(tx, 'list-announcement', mails);
    await tx.query(`UPDATE list_announcements SET recipients = $2 WHERE id = $1`, [id, queued]);
    await logAccess(
      staff,
      { action: 'announce', detail: { event: event.id, recipients: queued } },
      tx,
    );
    const turns = Math.max(0, Math.ceil(mails.length / limit) - 1);
    return {
      ok: true,
      recipients: queued,
      lastDue: new Date(start + turns * windowSeconds * 1000).toISOString(),
    } as const;
  });
}

/** Every address on the list with its state and consent, as CSV (logged). */
export async function listCsv(staff: Staff): Promise<{ csv: string; rows: number }> {
  const rows = await query<{
    email: string;
    state: string;
    signed_up_at: Date;
    confirmed_at: Date | null;
    confirmed_wording: string | null;
    unsubscribed_at: Date | null;
  }>(
    `SELECT email,
            CASE WHEN unsubscribed_at IS NOT NULL THEN 'unsubscribed'
                 WHEN confirmed_at IS NOT NULL THEN 'confirmed' ELSE 'pending' END AS state,
            signed_up_at, confirmed_at, confirmed_wording, unsubscribed_at
       FROM list_subscribers ORDER BY lower(email)`,
  );
  const iso = (date: Date | null) => (date ? new Date(date).toISOString() : null);
  const csv = toCsv(
    ['email', 'state', 'signed_up_at', 'confirmed_at', 'wording_agreed_to', 'unsubscribed_at'],
    rows.map((row) => [
      row.email,
      row.state,
      iso(row.signed_up_at),
      iso(row.confirmed_at),
      row.confirmed_wording,
      iso(row.unsubscribed_at),
    ]),
  );
  await logAccess(staff, { action: 'export-list', detail: { rows: rows.length } });
  return { csv, rows: rows.length };
}

/**
 * Takes an address off the list at once: it is kept as unsubscribed, so nothing is sent to it
 * again unless it signs up and confirms anew (the Erase screen deletes it altogether). `false`
 * when the address is not on the list at all.
 */
export async function removeFromList(email: string, staff: Staff): Promise<boolean> {
  return transaction(async (tx) => {
    const { rows } = await tx.query(
      `SELECT id FROM list_subscribers WHERE lower(email) = $1 FOR UPDATE`,
      [normalEmail(email)],
    );
    const row = rows[0] as { id: string | number } | undefined;
    if (!row) return false;
    await unsubscribe(String(row.id), tx);
    await logAccess(
      staff,
      { action: 'remove-from-list', recordKind: 'subscriber', recordId: String(row.id) },
      tx,
    );
    return true;
  });
}
