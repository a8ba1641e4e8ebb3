/**
 * Spans of time as half-open intervals [start, end): a consultation ending at 10:15 and one
 * starting at 10:15 do not overlap. Postgres's default tstzrange bounds ('[)') agree.
 */
export interface Interval {
  start: Date;
  end: Date;
}

export function overlaps(a: Interval, b: Interval): boolean {
  return a.start.getTime() < b.end.getTime() && b.start.getTime() < a.end.getTime();
}

/** Sorted by start, empty spans dropped, overlapping or touching spans joined into one. */
export function mergeIntervals(spans: Iterable<Interval>): Interval[] {
  const sorted = [...spans]
    .filter((span) => span.end.getTime() > span.start.getTime())
    .sort((a, b) => a.start.getTime() - b.start.getTime());
  const merged: Interval[] = [];
  for (const span of sorted) {
    const last = merged.at(-1);
    if (last && span.start.getTime() <= last.end.getTime()) {
      if (span.end.getTime() > last.end.getTime()) last.end = span.end;
    } else {
      merged.push({ start: span.start, end: span.end });
    }
  }
  return merged;
}

/** The part of `span` inside [from, to), or nothing. */
export function clip(span: Interval, from: Date, to: Date): Interval | undefined {
  const start = span.start.getTime() > from.getTime() ? span.start : from;
  const end = span.end.getTime() < to.getTime() ? span.end : to;
  return end.getTime() > start.getTime() ? { start, end } : undefined;
}
