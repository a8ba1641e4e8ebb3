import type { Config } from '@netlify/functions';
import { deskAnswer, deskFunction, deskRefusal, download } from '../src/server/records/endpoint';
import { logAccess } from '../src/server/records/access-log';
import { withFilters } from '../src/server/records/filters';
import { isWaiverId, searchWaivers, waiverView } from '../src/server/records/waivers';
import { pdfName, recordsPdf, storedRecordsPdf } from '../src/server/waiver/records-pdf';
import { loadWaiver } from '../src/server/waiver/store';

export const config: Config = {
  path: ['/api/records/waivers', '/api/records/waivers/:id', '/api/records/waivers/:id/pdf'],
};

/** Find waivers; open one (its health information: logged); download its signed PDF (logged). */
export default deskFunction(config, [
  {
    GET: withFilters(async (filters) => deskAnswer(await searchWaivers(filters))),
  },
  {
    async GET({ params, staff }) {
      const waiver = await waiverView(params.id);
      if (!waiver) return deskRefusal(404);
      await logAccess(staff, { action: 'view-waiver', recordKind: 'waiver', recordId: waiver.id });
      return deskAnswer({ id: waiver.id, waiver });
    },
  },
  {
    async GET({ params, staff }) {
      if (!isWaiverId(params.id)) return deskRefusal(404);
      // A PDF made before is sent as stored: the record is then read for its name and date
      // only, its health fields left sealed. A waiver never mailed has its PDF made now.
      const stored = await storedRecordsPdf(params.id);
      const record = await loadWaiver(params.id, { health: !stored });
      if (!record) return deskRefusal(404);
      const pdf = stored ?? (await recordsPdf(record));
      await logAccess(staff, {
        action: 'download-pdf',
        recordKind: 'waiver',
        recordId: record.id,
        detail: { sha256: pdf.sha256 },
      });
      return download(pdf.bytes, 'application/pdf', pdfName(record, 'records'));
    },
  },
]);
