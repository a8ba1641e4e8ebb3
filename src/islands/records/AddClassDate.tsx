import { useState } from 'react';
import { singleDateOutlook, type BookingsOverview } from '../../shared/desk-api';
import { dollars } from '../../shared/money';
import { ask, desk } from './api';
import { studioMoment, type StudioFormats } from './format';
import { BUTTON, BUTTON_QUIET, Field, FormCard, INPUT, Notice, Status, useFormPost } from './ui';

const OTHER = '';

/**
 * The Bookings screen's form for one extra class date: a class of her timetable on another day
 * or time, or a class of its own; its length, places and price are the timetable's unless she
 * writes others. Behind a button, so the screen opens on the bookings.
 */
export function AddClassDate({
  overview,
  format,
  onAdded,
}: {
  overview: Pick<BookingsOverview, 'timetable' | 'defaults' | 'timeZone'>;
  format: StudioFormats;
  onAdded: () => void;
}) {
  const [open, setOpen] = useState(false);
  const [chosen, setChosen] = useState(overview.timetable[0]?.name ?? OTHER);
  const [typed, setTyped] = useState({ date: '', time: '', capacity: '' });
  const entry = overview.timetable.find((c) => c.name === chosen);
  const places = entry?.capacity ?? overview.defaults.capacity;
  const price = entry?.priceCents ?? overview.defaults.priceCents;
  // What the classes page will do with the date, said while she types it, as the desk decides.
  const start = studioMoment(typed.date, typed.time, overview.timeZone);
  const minimum = Math.min(
    entry?.minimum ?? overview.defaults.minimum,
    /^\d+$/.test(typed.capacity) ? Number(typed.capacity) : places,
  );
  const outlook =
    start && start > new Date()
      ? singleDateOutlook(
          start,
          new Date(),
          { cutoffHours: overview.defaults.cutoffHours, minimum },
          (moment) => format.at(moment.toISOString()),
        )
      : undefined;
  const typing = (field: keyof typeof typed) => (event: { target: { value: string } }) =>
    setTyped((was) => ({ ...was, [field]: event.target.value }));

  const { busy, error, done, round, submit, clearError } = useFormPost(
    async (values) => {
      const answer = await ask(
        desk.bookings['add-class'].$post({
          json: {
            class: chosen,
            name: values.name ?? '',
            date: values.date ?? '',
            time: values.time ?? '',
            lengthMinutes: values.lengthMinutes,
            capacity: values.capacity,
            price: values.price,
          },
        }),
      );
      return `Added ${answer.title}, ${format.at(answer.start)}. ${
        answer.listedFrom
          ? `It shows on the classes page from ${format.day(answer.listedFrom)}, as far ahead as your timetable shows. `
          : ''
      }${answer.outlook}`;
    },
    () => {
      setOpen(false);
      onAdded();
    },
  );

  if (!open) {
    return (
      <div className="space-y-3">
        <Status>{done && <Notice tone="good">{done}</Notice>}</Status>
        <button type="button" className={BUTTON_QUIET} onClick={() => setOpen(true)}>
          Add a single class date…
        </button>
      </div>
    );
  }
  const errors = error?.fieldErrors ?? {};
  return (
    <FormCard key={round} id="add-class-title" title="Add a single class date" onSubmit={submit}>
      <p className="text-sm text-muted">
        An extra date of one of your classes, or a class of its own, such as a workshop. Visitors
        book it on the classes page like any other class.
      </p>
      <div className="grid gap-4 sm:grid-cols-2">
        <div className="sm:col-span-2">
          <label htmlFor="add-class-which" className="mb-1 block text-sm font-semibold text-ink">
            Class
          </label>
          <select
            id="add-class-which"
            className={INPUT}
            value={chosen}
            onChange={(event) => setChosen(event.target.value)}
            aria-invalid={errors.class ? true : undefined}
            aria-describedby={errors.class ? 'add-class-which-error' : undefined}
          >
            {overview.timetable.map((c) => (
              <option key={c.name} value={c.name}>
                {c.name}
              </option>
            ))}
            <option value={OTHER}>Another class (give it a name)</option>
          </select>
          {errors.class && (
            <p id="add-class-which-error" className="mt-1 text-sm font-semibold text-clay-700">
              {errors.class}
            </p>
          )}
        </div>
        {chosen === OTHER && (
          <Field
            label="Name visitors read"
            name="name"
            maxLength={80}
            required
            className="sm:col-span-2"
            error={errors.name}
          />
        )}
        <Field
          label="Date"
          name="date"
          type="date"
          required
          error={errors.date}
          onChange={typing('date')}
        />
        <Field
          label="Starts at"
          name="time"
          type="time"
          required
          error={errors.time}
          hint={`Your studio's time (${format.zone}).`}
          onChange={typing('time')}
        />
        <Field
          label="Length in minutes"
          name="lengthMinutes"
          inputMode="numeric"
          required={!entry}
          placeholder={entry ? String(entry.lengthMinutes) : undefined}
          error={errors.lengthMinutes}
          hint={entry ? `Empty: ${entry.lengthMinutes} minutes, as in your timetable.` : undefined}
        />
        <Field
          label="Places"
          name="capacity"
          inputMode="numeric"
          placeholder={String(places)}
          error={errors.capacity}
          hint={`Empty: ${places}.`}
          onChange={typing('capacity')}
        />
        <Field
          label="Price in dollars"
          name="price"
          inputMode="decimal"
          placeholder={(price / 100).toFixed(2).replace(/\.00$/, '')}
          error={errors.price}
          hint={`Empty: ${dollars(price)}.`}
        />
      </div>
      {outlook && errors.time !== outlook.words && (
        <p
          className={`rounded-lg p-3 text-sm ${outlook.bookable ? 'bg-sand-50 text-ink' : 'border border-clay-600 bg-white font-semibold text-clay-700'}`}
          data-outlook
        >
          {outlook.words}
        </p>
      )}
      <Status>
        {error && Object.keys(errors).length === 0 && <Notice tone="bad">{error.message}</Notice>}
      </Status>
      <div className="flex flex-wrap gap-2">
        <button type="submit" className={BUTTON} disabled={busy}>
          Add this date
        </button>
        <button
          type="button"
          className={BUTTON_QUIET}
          onClick={() => {
            setOpen(false);
            clearError();
          }}
        >
          Not now
        </button>
      </div>
    </FormCard>
  );
}
