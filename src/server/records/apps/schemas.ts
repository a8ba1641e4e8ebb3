/** What more than one screen's routes read from a request. */
import { NOTE_MAX } from '../../../shared/desk-api';
import { z } from '../../../shared/zod';

/** A POST that sends nothing but says it is the desk's (`{}`). */
export const nothing = z.object({});

/** Her note to the person told of a cancellation; empty: none. */
export const note = z
  .string('Please write the note as text.')
  .trim()
  .max(NOTE_MAX, `Please keep the note under ${NOTE_MAX.toLocaleString('en-US')} characters.`)
  .default('');

export const day = (what: string) => z.iso.date({ error: `Please enter the ${what} as a date.` });
