import type { Config } from '@netlify/functions';
import { requestRebuild } from '../src/server/events/rebuild';
import { json } from '../src/server/request/responses';

/**
 * Builds the site again every day (src/server/events/rebuild.ts), so events that are over leave
 * the Events page without waiting for a commit. Netlify reads the schedule in UTC: 10:00 UTC is
 * 2 or 3 AM in Portland, when nobody is looking at the calendar.
 */
export const config: Config = { schedule: '0 10 * * *' };

export default async (): Promise<Response> => {
  const outcome = await requestRebuild();
  switch (outcome.kind) {
    case 'requested':
      console.info('daily-rebuild: a build of the site was requested');
      return json({ success: true });
    case 'local':
      return json({ success: true, skipped: 'not deployed on Netlify: nothing to rebuild' });
    case 'missing-setting':
      return json({ success: false, error: `${outcome.setting} is not set.` }, 500);
    case 'bad-setting':
      return json({ success: false, error: `${outcome.setting} is not a web address.` }, 500);
    case 'refused':
      console.error(`daily-rebuild: the build hook answered ${outcome.status}; no build started`);
      return json({ success: false, error: 'The build hook refused the request.' }, 502);
    case 'unreachable':
      console.error(`daily-rebuild: the build hook could not be reached (${outcome.reason})`);
      return json({ success: false, error: 'The build hook could not be reached.' }, 502);
  }
};
