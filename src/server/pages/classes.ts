/**
 * What /classes, rendered on demand (src/pages/classes.astro), asks of the server: the classes
 * of the coming weeks with their places left now, as the page lists them, and the studio's
 * cancellation policy. The one door from src/pages into src/server (eslint.config.js).
 */
import type { ClassListing } from '../../shared/classes/form';
import { upcomingClasses } from '../classes/engine';
import { placePolicy } from '../classes/policy';
import { classSettings } from '../classes/settings';
import { dollars } from '../../shared/money';
import { whenOf } from '../classes/words';
import { methodNotAllowed } from '../request/responses';

export { methodNotAllowed };

/** The timetable of the coming weeks, with the places left right now. */
export async function classesNow(): Promise<{ classes: ClassListing[]; policy: string }> {
  const { timeZone } = classSettings();
  const views = await upcomingClasses();
  return {
    policy: placePolicy().words,
    classes: views.map((view) => {
      const w = whenOf(view.start, view.end, timeZone);
      return {
        key: view.key,
        start: view.start.toISOString(),
        title: view.title,
        date: w.date,
        time: w.time,
        short: w.short,
        capacity: view.capacity,
        seatsLeft: view.seatsLeft,
        price: view.priceCents / 100,
        priceLabel: dollars(view.priceCents),
        state: view.state,
      };
    }),
  };
}
