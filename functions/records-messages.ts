import type { Config } from '@netlify/functions';
import { deskAnswer, deskFunction, deskRefusal } from '../src/server/records/endpoint';
import { withFilters } from '../src/server/records/filters';
import { markNotSpam, searchMessages, type SpamFilter } from '../src/server/records/messages';

export const config: Config = {
  path: ['/api/records/messages', '/api/records/messages/:id/not-spam'],
};

const SHOW: readonly SpamFilter[] = ['all', 'inbox', 'spam'];

/** Find messages (all, the inbox, or the spam); "not spam" queues a message's mail, once. */
export default deskFunction(config, [
  {
    GET: withFilters(async (filters, { url }) => {
      const show = SHOW.find((value) => value === url.searchParams.get('show')) ?? 'all';
      return deskAnswer(await searchMessages(filters, show));
    }),
  },
  {
    async POST({ params, staff }) {
      const outcome = await markNotSpam(params.id, staff);
      if (!outcome) return deskRefusal(404);
      return deskAnswer({
        id: params.id,
        queued: outcome.queued,
        sent: outcome.delivery ? outcome.delivery.sent > 0 : false,
      });
    },
  },
]);
