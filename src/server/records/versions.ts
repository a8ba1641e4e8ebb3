/**
 * The desk's view of the waiver's versions: every text ever signed, exactly as signed, with how
 * many waivers are under it; who must sign the version in force again; and sending them the
 * request, once per person per version (waiver/re-sign.ts).
 */
import type { ReSignRow, WaiverTexts } from '../../shared/desk-api';
import type { Staff } from '../auth/sessions';
import type { Outbox } from '../platform/outbox';
import { query, transaction } from '../platform/db';
import { insertReSignRequest } from '../waiver/re-sign';
import { coveringVersions } from '../../shared/waiver-versions';
import { coveringHashes, versionInForce, waiverVersions } from '../waiver/versions';
import { logAccess } from './access-log';

export async function waiverTexts(): Promise<WaiverTexts> {
  const versions = waiverVersions();
  const inForce = versionInForce();
  const rows = await query<{
    sha256: string;
    version: string;
    text: string;
    created_at: Date;
    first_signed_at: Date | null;
    signatures: number;
  }>(
    `SELECT t.sha256, t.version, t.text, t.created_at, min(w.created_at) AS first_signed_at,
            count(w.id) FILTER (WHERE w.spam_reason IS NULL)::int AS signatures
       FROM waiver_texts t LEFT JOIN waivers w ON w.waiver_text_sha256 = t.sha256
      GROUP BY t.sha256
      ORDER BY min(w.created_at) DESC NULLS LAST, t.created_at DESC`,
  );
  // The first version that covers a signer: the one statusOf counts from.
  const reSignFrom = coveringVersions(versions)[0];
  return {
    texts: rows.map((row) => ({
      sha256: row.sha256.trim(),
      version: row.version,
      material:
        versions.versions.find((entry) => entry.sha256 === row.sha256.trim())?.material ?? null,
      inForce: row.sha256.trim() === inForce.sha256,
      firstSignedAt: new Date(row.first_signed_at ?? row.created_at).toISOString(),
      signatures: row.signatures,
      text: row.text,
    })),
    current: {
      version: inForce.version,
      material: inForce.material,
      reSignFrom: reSignFrom.version,
    },
    validForMonths: versions.validForMonths ?? null,
  };
}

/** Everyone whose latest waiver (spam aside) is under a text before the version they must sign. */
export async function reSignList(): Promise<ReSignRow[]> {
  const rows = await query<{
    id: string;
    first_name: string;
    last_name: string;
    email: string;
    version: string;
    created_at: Date;
    requested_at: Date | null;
  }>(
    `SELECT latest.*, r.created_at AS requested_at FROM (
       SELECT DISTINCT ON (lower(w.email)) w.id, w.first_name, w.last_name, w.email,
              w.waiver_text_sha256, t.version, w.created_at
         FROM waivers w JOIN waiver_texts t ON t.sha256 = w.waiver_text_sha256
        WHERE w.spam_reason IS NULL
        ORDER BY lower(w.email), w.created_at DESC, w.id DESC) latest
       LEFT JOIN waiver_resign_requests r
         ON r.email_key = lower(latest.email) AND r.version = $2
      WHERE NOT (latest.waiver_text_sha256 = ANY($1::text[]))
      ORDER BY latest.created_at DESC, latest.id DESC`,
    [[...coveringHashes()], versionInForce().version],
  );
  return rows.map((row) => ({
    waiverId: row.id,
    name: `${row.first_name} ${row.last_name}`,
    email: row.email,
    version: row.version,
    signedAt: new Date(row.created_at).toISOString(),
    requestedAt: row.requested_at ? new Date(row.requested_at).toISOString() : null,
  }));
}

/**
 * Queues a re-sign request to everyone on the list not yet asked for the version in force (or
 * to the one signer of `waiverId`): one per person per version, whatever the number of presses.
 * Returns the outbox ids to send now and how many were asked this time.
 */
export async function requestReSign(
  staff: Staff,
  outbox: Pick<Outbox<'waiver-re-sign'>, 'enqueue'>,
  only?: string,
): Promise<{ mails: string[]; requested: number }> {
  const version = versionInForce().version;
  const waiting = (await reSignList()).filter(
    (row) => !row.requestedAt && (!only || row.waiverId === only),
  );
  return transaction(async (tx) => {
    const mails: string[] = [];
    for (const row of waiting) {
      const request = await insertReSignRequest(tx, {
        waiverId: row.waiverId,
        email: row.email,
        version,
        staff: staff.email,
      });
      if (!request) continue;
      const mail = await outbox.enqueue(tx, 'waiver-re-sign', `${row.waiverId}:${version}`);
      if (mail) mails.push(mail);
    }
    if (mails.length > 0) {
      await logAccess(
        staff,
        { action: 'request-re-sign', detail: { version, count: mails.length } },
        tx,
      );
    }
    return { mails, requested: mails.length };
  });
}
