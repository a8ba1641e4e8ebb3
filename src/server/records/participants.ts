/**
 * Participants: everyone who signed with one e-mail address, in any case, as one person. Their
 * status is read from their latest waiver (spam aside): covered when it is under the version in
 * force or under a later non-material one (waiver/versions.ts, matched by the SHA-256
 * of the text signed, so a text edited under an old label never counts as the new one), an older
 * version otherwise, expired past the studio's optional `validForMonths`, or nothing on file.
 */
import {
  WAIVER_FIELDS,
  WAIVER_FIELD_NAMES,
  WAIVER_SECTIONS,
  isHealthField,
} from '../../shared/waiver';
import type {
  ParticipantHealth,
  ParticipantRow,
  ParticipantStatus,
  ParticipantView,
} from '../../shared/desk-api';
import { query } from '../platform/db';
import { WAIVER_SELECT, waiverRecord } from '../waiver/store';
import { statusOf, versionInForce } from '../waiver/versions';
import { textOrPhone, Where } from './filters';
import { isWaiverId } from './waivers';

interface LatestRow {
  key: string;
  id: string;
  created_at: Date;
  waiver_text_sha256: string;
  version: string;
  first_name: string;
  last_name: string;
  email: string;
  waivers: string | number;
}

/** Each participant's latest waiver (not spam), keyed by lower(email). */
const LATEST = `
  SELECT DISTINCT ON (lower(w.email)) lower(w.email) AS key, w.id, w.created_at,
         w.waiver_text_sha256, t.version, w.first_name, w.last_name, w.email,
         count(*) OVER (PARTITION BY lower(w.email)) AS waivers
    FROM waivers w JOIN waiver_texts t ON t.sha256 = w.waiver_text_sha256
   WHERE w.spam_reason IS NULL`;

function participantOf(row: LatestRow): ParticipantRow {
  const createdAt = new Date(row.created_at);
  return {
    waiverId: row.id,
    name: `${row.first_name} ${row.last_name}`,
    email: row.email,
    waivers: Number(row.waivers),
    ...statusWith(row.waiver_text_sha256, createdAt, row.version),
  };
}

function statusWith(sha256: string, createdAt: Date, version: string): ParticipantStatus {
  return {
    status: statusOf({ createdAt, sha256 }),
    signedAt: createdAt.toISOString(),
    version,
  };
}

const NOTHING: ParticipantStatus = { status: 'none', signedAt: null, version: null };

/**
 * The desk's lists that name a person (messages, consultations): each item with the waiver
 * status of its address (any case), read in one query for the whole page.
 */
export async function withWaiverStatus<T extends { email: string }>(
  items: T[],
): Promise<(T & { waiverStatus: ParticipantStatus['status'] })[]> {
  const keys = [...new Set(items.map((item) => item.email.toLowerCase()))];
  const statuses = new Map<string, ParticipantStatus>();
  if (keys.length > 0) {
    const rows = await query<LatestRow>(
      `${LATEST} AND lower(w.email) = ANY($1::text[])
        ORDER BY lower(w.email), w.created_at DESC, w.id DESC`,
      [keys],
    );
    for (const row of rows) {
      statuses.set(
        row.key,
        statusWith(row.waiver_text_sha256, new Date(row.created_at), row.version),
      );
    }
  }
  return items.map((item) => ({
    ...item,
    waiverStatus: (statuses.get(item.email.toLowerCase()) ?? NOTHING).status,
  }));
}

/**
 * The quick check: participants any of whose waivers has the text in its name, e-mail or phone
 * (any case; a phone however punctuated), latest signers first, at most `limit`.
 */
export async function searchParticipants(text: string, limit = 20): Promise<ParticipantRow[]> {
  const where = new Where()
    .add('m.spam_reason IS NULL')
    .add(
      ...textOrPhone(
        text.trim(),
        [`m.first_name || ' ' || m.last_name`, 'm.email', 'm.phone'],
        ['m.phone'],
      ),
    );
  const rows = await query<LatestRow>(
    `SELECT * FROM (${LATEST} AND lower(w.email) IN (SELECT lower(m.email) FROM waivers m ${where.sql})
      ORDER BY lower(w.email), w.created_at DESC, w.id DESC) latest
     ORDER BY created_at DESC, id DESC
     LIMIT ${where.param(limit)}`,
    where.params,
  );
  return rows.map(participantOf);
}

/** The participant who signed waiver `id`: their status and every waiver they signed. */
export async function participantView(id: string): Promise<ParticipantView | undefined> {
  if (!isWaiverId(id)) return undefined;
  const rows = await query<{
    id: string;
    created_at: Date;
    version: string;
    waiver_text_sha256: string;
    first_name: string;
    last_name: string;
    email: string;
  }>(
    `SELECT w.id, w.created_at, t.version, w.waiver_text_sha256, w.first_name, w.last_name, w.email
       FROM waivers w JOIN waiver_texts t ON t.sha256 = w.waiver_text_sha256
      WHERE w.spam_reason IS NULL
        AND lower(w.email) = (SELECT lower(email) FROM waivers WHERE id = $1)
      ORDER BY w.created_at DESC, w.id DESC`,
    [id],
  );
  const latest = rows[0];
  if (!latest) return undefined;
  const [request] = await query<{ created_at: Date }>(
    `SELECT created_at FROM waiver_resign_requests
      WHERE email_key = $1 AND version = $2`,
    [latest.email.toLowerCase(), versionInForce().version],
  );
  return {
    ...participantOf({ ...latest, key: latest.email.toLowerCase(), waivers: rows.length }),
    signed: rows.map((row) => ({
      id: row.id,
      createdAt: new Date(row.created_at).toISOString(),
      version: row.version,
      name: `${row.first_name} ${row.last_name}`,
    })),
    reSignRequestedAt: request ? new Date(request.created_at).toISOString() : null,
  };
}

/**
 * The participant's health information: their latest, and the last waiver whose health fields
 * differ from the one before it (which fields, by label). Decrypts every waiver they signed;
 * the caller logs the view.
 */
export async function participantHealth(id: string): Promise<ParticipantHealth | undefined> {
  if (!isWaiverId(id)) return undefined;
  const rows = await query<Record<string, unknown>>(
    `${WAIVER_SELECT}
      WHERE w.spam_reason IS NULL
        AND lower(w.email) = (SELECT lower(email) FROM waivers WHERE id = $1)
      ORDER BY w.created_at, w.id`,
    [id],
  );
  const records = rows.map((row) => waiverRecord(row));
  const latest = records.at(-1);
  if (!latest) return undefined;
  const healthFields = WAIVER_FIELD_NAMES.filter(isHealthField);
  let lastChange: ParticipantHealth['lastChange'] = null;
  records.forEach((record, index) => {
    const previous = records[index - 1];
    if (!previous) return;
    const changed = healthFields.filter((name) => record[name].trim() !== previous[name].trim());
    if (changed.length > 0) {
      lastChange = {
        at: record.createdAt.toISOString(),
        waiverId: record.id,
        fields: changed.map((name) => WAIVER_FIELDS[name].label),
      };
    }
  });
  return {
    latest: healthFields.map((name) => ({
      name,
      label: WAIVER_FIELDS[name].label,
      section: WAIVER_SECTIONS[WAIVER_FIELDS[name].section],
      value: latest[name],
      health: true,
    })),
    lastChange,
    since: records[0].createdAt.toISOString(),
  };
}
