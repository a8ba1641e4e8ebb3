/**
 * The kinds of booking that have a price (a private or in-home session, a place in a class), as
 * the desk acts on them: each kind answers for its own table, so the desk never writes a kind's
 * SQL or branches on which kind it holds. A session's functions are in booking/, a place's in
 * classes/; the mails each queues are its own.
 */
import type { PayableKind } from '../../shared/desk-api';
import { cancelAndTell } from '../booking/session-manage';
import {
  lockSessionForDesk,
  setSessionNoShow,
  setSessionPaidAtStudio,
} from '../booking/session-store';
import { cancelPlace } from '../classes/engine';
import { lockPlaceForDesk, setPlaceNoShow, setPlacePaidAtStudio } from '../classes/store';
import type { outbox as siteOutbox } from '../mail-kinds';
import type { Queryable } from '../platform/db';
import type { DeskLock } from './lock';

export type { DeskLock };

export interface PricedKind {
  /** Locks the booking; none when it is spam, or a hold that lapsed and never was a booking. */
  lock(tx: Queryable, id: string): Promise<DeskLock | undefined>;
  /** Records it paid at the studio by `by`; `null` takes that mark back. */
  setPaidAtStudio(tx: Queryable, id: string, by: string | null): Promise<void>;
  /** Marks it a no-show by `by`; `null` takes the mark back. */
  setNoShow(tx: Queryable, id: string, by: string | null): Promise<void>;
  /**
   * Cancels it for `by` with her note, and queues the mails that tell the person and her
   * calendar (a place's freed number offered to the waitlist too): their ids, or `undefined`
   * when it was over or cancelled already (nothing changed).
   */
  cancel(
    tx: Queryable,
    id: string,
    by: string,
    note: string | null,
    outbox: typeof siteOutbox,
  ): Promise<string[] | undefined>;
  /** The access log's word for a cancel from the desk. */
  cancelAction: 'cancel-session' | 'cancel-place';
}

export const PRICED_KINDS: Record<PayableKind, PricedKind> = {
  session: {
    lock: lockSessionForDesk,
    setPaidAtStudio: setSessionPaidAtStudio,
    setNoShow: setSessionNoShow,
    cancel: (tx, id, by, note, outbox) => cancelAndTell(tx, outbox, id, by, note),
    cancelAction: 'cancel-session',
  },
  place: {
    lock: lockPlaceForDesk,
    setPaidAtStudio: setPlacePaidAtStudio,
    setNoShow: setPlaceNoShow,
    cancel: (tx, id, by, note, outbox) => cancelPlace(tx, id, by, outbox, note),
    cancelAction: 'cancel-place',
  },
};
