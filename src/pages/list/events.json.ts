import type { APIRoute } from 'astro';
import { getEventsNow } from '../../lib/content';
import { eventPath, placeLine, priceLabel } from '../../lib/events';
import { describeWhen } from '../../lib/studio-time';
import type { AnnounceableEvent } from '../../shared/list';

/**
 * The events still to come as the build sees them, in the words of their announcement: the desk's
 * function reads this file (shipped with it) to offer them, so the mail says what the page says,
 * formatted by the same code. Nothing here is private: it is the Events page's content.
 */
export const GET: APIRoute = async () => {
  const { upcoming } = await getEventsNow();
  const events: AnnounceableEvent[] = upcoming.map((event) => {
    const when = describeWhen(event.start, event.end);
    return {
      id: event.id,
      title: event.title,
      when: when.time ? `${when.date}, ${when.time}` : when.date,
      place: placeLine(event.place),
      price: priceLabel(event.price),
      summary: event.summary,
      path: eventPath(event),
      endsAt: event.end.toInstant().toString(),
    };
  });
  return new Response(JSON.stringify({ events }, null, 2), {
    headers: { 'Content-Type': 'application/json; charset=utf-8' },
  });
};
