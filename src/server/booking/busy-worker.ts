/**
 * The worker thread busy-reader.ts starts to read one copy of the instructor's calendar
 * (busy-times.ts), so that however her calendar is shaped, the parsing and the expansion of its
 * repeating events never hold the thread that answers the pages. Node runs this file as it is
 * (type stripping): the functions' bundle does not contain it, netlify.toml's included_files ship
 * it and what it imports.
 */
import { parentPort, workerData } from 'node:worker_threads';
import {
  readBusyTimes,
  TooMuchCalendarError,
  UnreadableCalendarError,
  type ReadLimits,
} from './busy-times.ts';

export interface BusyWorkerInput {
  text: string;
  /** The range, in epoch milliseconds. */
  start: number;
  end: number;
  timeZone: string;
  limits: ReadLimits;
}

export type BusyWorkerOutput =
  | { ok: true; busy: [number, number][]; events: number; unreadable: number }
  /** `kind` says which error it was; `message` is only ever our own words, never her calendar's. */
  | { ok: false; kind: 'too-much' | 'unreadable' | 'failed'; message: string };

async function read(input: BusyWorkerInput): Promise<BusyWorkerOutput> {
  try {
    const range = { start: new Date(input.start), end: new Date(input.end) };
    const read = await readBusyTimes(input.text, range, input.timeZone, input.limits);
    const busy = read.busy.map(({ start, end }): [number, number] => [
      start.getTime(),
      end.getTime(),
    ]);
    return { ok: true, busy, events: read.events, unreadable: read.unreadable };
  } catch (error) {
    if (error instanceof TooMuchCalendarError) {
      return { ok: false, kind: 'too-much', message: error.message };
    }
    if (error instanceof UnreadableCalendarError) {
      return { ok: false, kind: 'unreadable', message: error.message };
    }
    return { ok: false, kind: 'failed', message: 'The calendar could not be read.' };
  }
}

if (parentPort) parentPort.postMessage(await read(workerData as BusyWorkerInput));
