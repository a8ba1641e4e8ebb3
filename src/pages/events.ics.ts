import type { APIRoute } from 'astro';
import { getEventsNow, getSite } from '../lib/content';
import { eventsCalendar } from '../lib/event-calendar';

/**
 * The feed calendars subscribe to: every event still to come. It exists with no events too
 * (an empty calendar), so a subscription made earlier keeps working between seasons.
 */
export const GET: APIRoute = async ({ site }) => {
  const [studio, { upcoming, now }] = await Promise.all([getSite(), getEventsNow()]);
  const body = eventsCalendar(
    upcoming,
    { name: studio.name, email: studio.email, site: site! },
    now,
    { feed: true },
  );
  return new Response(body, { headers: { 'Content-Type': 'text/calendar; charset=utf-8' } });
};
