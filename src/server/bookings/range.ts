/**
 * A range of days on a calendar (the desk's CSV): each owner of a booking table filters its own
 * rows by it, with the same SQL, so every kind counts a day alike.
 */
export interface DayRange {
  /** The first day, `YYYY-MM-DD`; none: from the first booking. */
  from?: string;
  /** The last day, included; none: to the last booking. */
  to?: string;
  /** The zone the days are in. */
  tz: string;
}

/** The parameters `withinDays` reads, as $1, $2, $3. */
export const dayParams = (range: DayRange) => [range.from ?? null, range.to ?? null, range.tz];

/** A condition: `column` falls in the days $1 to $2 (either open) of the zone $3. */
export const withinDays = (column: string) =>
  `($1::date IS NULL OR ${column} >= ($1::date::timestamp AT TIME ZONE $3))
   AND ($2::date IS NULL OR ${column} < (($2::date + 1)::timestamp AT TIME ZONE $3))`;
