import type { Config } from '@netlify/functions';
import { z } from '../src/shared/zod';
import {
  checked,
  deskAnswer,
  deskFunction,
  deskRefusal,
  deskRefused,
  download,
} from '../src/server/records/endpoint';
import { announceEvent, listCsv, listOverview, removeFromList } from '../src/server/records/list';

export const config: Config = {
  path: [
    '/api/records/list',
    '/api/records/list/export',
    '/api/records/list/remove',
    '/api/records/list/announce',
  ],
};

const email = z.object({
  email: z.email('Please enter an e-mail address, like name@example.com.').trim().max(254),
});
const event = z.object({ eventId: z.string('Please choose an event.').min(1).max(200) });

/**
 * The List screen: the Get Notified list's counts, its CSV, removing an address, and announcing
 * an event to it (once per event).
 */
export default deskFunction(config, [
  {
    async GET() {
      return deskAnswer(await listOverview());
    },
  },
  {
    async GET({ staff }) {
      const { csv } = await listCsv(staff);
      const day = new Date().toISOString().slice(0, 10);
      return download(csv, 'text/csv; charset=utf-8', `get-notified-list-${day}.csv`);
    },
  },
  {
    async POST({ body, staff }) {
      const input = checked(email, body);
      if (!input.ok) return deskRefused(input.problem);
      if (!(await removeFromList(input.value.email, staff))) {
        return deskRefusal(404, 'That address is not on the list.');
      }
      return deskAnswer({ removed: true });
    },
  },
  {
    async POST({ body, staff }) {
      const input = checked(event, body);
      if (!input.ok) return deskRefused(input.problem);
      const outcome = await announceEvent(input.value.eventId, staff);
      if (!outcome.ok) {
        return outcome.why === 'already'
          ? deskRefusal(409, 'That event has been announced to the list already.')
          : deskRefusal(404, 'That event is not among the events to come.');
      }
      return deskAnswer({ recipients: outcome.recipients, lastDue: outcome.lastDue });
    },
  },
]);
