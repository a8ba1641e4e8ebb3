import type { Config } from '@netlify/functions';
import {
  LIST_LIMIT,
  retryFailedMail,
  undeliveredCount,
  undeliveredMail,
} from '../src/server/records/delivery';
import { deskAnswer, deskFunction, deskRefusal } from '../src/server/records/endpoint';

export const config: Config = {
  path: ['/api/records/delivery', '/api/records/delivery/:id/send-again'],
};

/** Every mail still owed or given up on; "send again" for a failed one (logged). */
export default deskFunction(config, [
  {
    async GET() {
      const [items, undelivered] = await Promise.all([undeliveredMail(), undeliveredCount()]);
      return deskAnswer({ items, undelivered, limit: LIST_LIMIT });
    },
  },
  {
    async POST({ params, staff }) {
      const outcome = await retryFailedMail(params.id, staff);
      if (!outcome) {
        return deskRefusal(
          409,
          'That e-mail is not waiting to be sent again: it was sent, or is still being tried.',
        );
      }
      return deskAnswer({ id: params.id, sent: outcome.sent > 0 });
    },
  },
]);
