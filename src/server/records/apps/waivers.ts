/**
 * Waivers (under /waivers): find them; open one (its health information: logged); its signed PDF
 * (logged).
 */
import { Hono } from 'hono';
import { pdfName, recordsPdf, storedRecordsPdf } from '../../waiver/records-pdf';
import { loadWaiver } from '../../waiver/store';
import { logAccess } from '../access-log';
import { filtersQuery } from '../filters';
import { answer, download, query, refuse, signedIn, type DeskEnv } from '../router';
import { isWaiverId, searchWaivers, waiverView } from '../waivers';

export const waivers = new Hono<DeskEnv>()
  .get('/', signedIn(), query(filtersQuery({})), async (c) =>
    answer(c, await searchWaivers(c.req.valid('query').filters)),
  )
  .get('/:id', signedIn(), async (c) => {
    const waiver = await waiverView(c.req.param('id'));
    if (!waiver) return refuse(c, 404);
    await logAccess(c.var.staff, {
      action: 'view-waiver',
      recordKind: 'waiver',
      recordId: waiver.id,
    });
    return answer(c, { id: waiver.id, waiver });
  })
  .get('/:id/pdf', signedIn(), async (c) => {
    const id = c.req.param('id');
    if (!isWaiverId(id)) return refuse(c, 404);
    // A PDF made before is sent as stored: the record is then read for its name and date only,
    // its health fields left sealed. A waiver never mailed has its PDF made now.
    const stored = await storedRecordsPdf(id);
    const record = await loadWaiver(id, { health: !stored });
    if (!record) return refuse(c, 404);
    const pdf = stored ?? (await recordsPdf(record));
    await logAccess(c.var.staff, {
      action: 'download-pdf',
      recordKind: 'waiver',
      recordId: record.id,
      detail: { sha256: pdf.sha256 },
    });
    return download(pdf.bytes, 'application/pdf', pdfName(record, 'records'));
  });
