import { useState } from 'react';
import type { DeskBooking, DeskClass } from '../../shared/desk-api';
import { AddClassDate } from './AddClassDate';
import { desk, DeskError } from './api';
import type { Act } from './BookingActions';
import { BookingCard } from './BookingCard';
import { ClassCard } from './ClassCard';
import { count, studioFormats } from './format';
import { useLoad, type Outcome } from './useLoad';
import { Failed, Loading, Notice, ScreenTitle } from './ui';

type Item =
  | { type: 'booking'; start: string; booking: DeskBooking }
  | { type: 'class'; start: string; lesson: DeskClass };

/** The Bookings screen: today and to come, each person's waiver and payment, and her actions. */
export default function Bookings() {
  const overview = useLoad('bookings', (options) => desk.bookings.$get({}, options));
  const [busy, setBusy] = useState<string>();
  const [acted, setActed] = useState<{ id: string; outcome: Outcome }>();
  const format = studioFormats(overview.data?.timeZone ?? 'UTC');
  const [at] = useState(() => Date.now());

  const act: Act = async (id, work) => {
    setBusy(id);
    setActed(undefined);
    try {
      const words = await work();
      setActed({ id, outcome: { tone: 'good', words } });
      overview.reload();
      return true;
    } catch (error) {
      setActed({
        id,
        outcome: { tone: 'bad', words: error instanceof DeskError ? error.message : String(error) },
      });
      return false;
    } finally {
      setBusy(undefined);
    }
  };

  const data = overview.data;
  const items: Item[] = data
    ? [
        ...data.bookings.map((booking): Item => ({
          type: 'booking',
          start: booking.start,
          booking,
        })),
        ...data.classes.map((lesson): Item => ({ type: 'class', start: lesson.start, lesson })),
      ].sort((a, b) => Date.parse(a.start) - Date.parse(b.start))
    : [];
  const days = new Map<string, Item[]>();
  for (const item of items) {
    const day = format.day(item.start);
    days.set(day, [...(days.get(day) ?? []), item]);
  }
  const today = format.day(new Date(at).toISOString());
  const outside =
    (data?.bookings.filter((b) => b.outsideHours).length ?? 0) +
    (data?.classes.filter((c) => c.outsideTimetable).length ?? 0);

  return (
    <div className="space-y-6">
      <ScreenTitle>Bookings</ScreenTitle>
      {overview.loading && !data && <Loading what="the bookings" />}
      {overview.error && <Failed error={overview.error} retry={overview.reload} />}
      {outside > 0 && (
        <Notice tone="bad">
          {count(outside, 'booking')} to come {outside === 1 ? 'is' : 'are'} outside your hours or
          timetable now: booked before they changed, {outside === 1 ? 'it stays' : 'they stay'}{' '}
          booked. Each is marked below: cancel any you cannot take.
        </Notice>
      )}
      {data && <AddClassDate overview={data} format={format} onAdded={overview.reload} />}
      {data && items.length === 0 && <p className="text-muted">Nothing is booked from today on.</p>}
      {[...days.entries()].map(([day, list]) => (
        <section key={day} className="space-y-3" aria-labelledby={`day-${day}`}>
          <h3 id={`day-${day}`} className="font-serif text-xl font-semibold">
            {day === today ? `Today, ${day}` : day}
          </h3>
          <ul className="space-y-3">
            {list.map((item) =>
              item.type === 'booking' ? (
                <li key={`b-${item.booking.id}`}>
                  <BookingCard
                    booking={item.booking}
                    format={format}
                    at={at}
                    busy={busy === item.booking.id}
                    act={act}
                    acted={acted}
                  />
                </li>
              ) : (
                <li key={`c-${item.lesson.key}-${item.lesson.start}`}>
                  <ClassCard
                    lesson={item.lesson}
                    format={format}
                    at={at}
                    busy={busy !== undefined}
                    busyWith={busy}
                    act={act}
                    acted={acted}
                  />
                </li>
              ),
            )}
          </ul>
        </section>
      ))}
      {data && (
        <p className="text-sm text-muted">
          Times are the studio's: {format.zone}. Classes nobody has booked yet are shown four weeks
          ahead.
        </p>
      )}
    </div>
  );
}
