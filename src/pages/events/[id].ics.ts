import type { APIRoute, GetStaticPaths } from 'astro';
import { buildNow } from '../../lib/clock';
import { getEvents, getSite } from '../../lib/content';
import { eventsCalendar } from '../../lib/event-calendar';
import type { StudioEvent } from '../../lib/events';

/** One event's calendar file: the "Add to calendar" link of its card and its page. */
export const getStaticPaths = (async () => {
  const events = await getEvents();
  return events.map((event) => ({ params: { id: event.id }, props: { event } }));
}) satisfies GetStaticPaths;

export const GET: APIRoute<{ event: StudioEvent }> = async ({ props, site }) => {
  const studio = await getSite();
  const body = eventsCalendar(
    [props.event],
    { name: studio.name, email: studio.email, site: site! },
    buildNow(),
  );
  return new Response(body, { headers: { 'Content-Type': 'text/calendar; charset=utf-8' } });
};
