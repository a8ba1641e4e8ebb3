/**
 * The records desk's HTTP API, under /api/records (functions/desk.ts serves it): each path once,
 * with its guard (`signedIn`, `open`), its validator and its handler. What every request goes
 * through is in ./router.ts. The desk's island calls it through Hono's typed client
 * (`DeskApi`, ./api-type.ts), so an answer changed here is a type error there.
 */
import { Hono } from 'hono';
import { KIOSK_SIGN_IN, LINK_REFUSED, NOTE_MAX, SIGN_IN_SENT } from '../../shared/desk-api';
import { EMAIL_FIELD, fieldSchema } from '../../shared/fields';
import { z } from '../../shared/zod';
import { deviceCookie, forgetDevices, rememberDevice } from '../auth/devices';
import { useSignInLink } from '../auth/links';
import { endEverySession, endSession, setSessionCookie, startSession } from '../auth/sessions';
import { sendSignInLink, signInAllowed, steady } from '../auth/sign-in';
import { normalEmail } from '../../shared/email';
import { dollars } from '../../shared/money';
import { isStaff } from '../auth/staff';
import { transaction } from '../platform/db';
import { outbox } from '../mail-kinds';
import { siteOrigin } from '../platform/hosting';
import { afterAnswer } from '../request/guard';
import {
  forgetKioskCookies,
  kioskId,
  kioskOf,
  listKiosks,
  turnOffKiosk,
  turnOnKiosk,
  turnOffThisKiosk,
} from '../waiver/kiosk';
import { pdfName, recordsPdf, storedRecordsPdf } from '../waiver/records-pdf';
import { loadWaiver } from '../waiver/store';
import { accessLog, logAccess } from './access-log';
import {
  blockTime,
  cancelFromDesk,
  consultationsCalendar,
  listBookings,
  newFeedToken,
  unblockTime,
} from './consultations';
import {
  afterChange,
  bookingsCsv,
  bookingsOverview,
  cancelOne,
  cancelWholeClass,
  markNoShow,
  markPaidAtStudio,
  refundPayment,
  type Refusal,
} from './bookings';
import { addSingleDate } from './class-dates';
import { LIST_LIMIT, retryFailedMail, undeliveredCount, undeliveredMail } from './delivery';
import { eraseParticipant, previewErasure } from './erasure';
import { exportDownload, messagesCsv, waiversCsv } from './exports';
import { filtersQuery, queryText } from './filters';
import { announceEvent, listCsv, listOverview, removeFromList } from './list';
import { markNotSpam, searchMessages } from './messages';
import { counts } from './overview';
import { participantHealth, participantView, searchParticipants } from './participants';
import { retentionPreview } from './retention';
import {
  answer,
  body,
  download,
  freshSignInNeeded,
  open,
  query,
  refuse,
  refuseFields,
  signedIn,
  type DeskEnv,
} from './router';
import { reSignList, requestReSign, waiverTexts } from './versions';
import { isWaiverId, searchWaivers, waiverView } from './waivers';

/** A flag or a token sent otherwise than as it should be is as good as none (not a 422). */
const flag = z.boolean().optional().catch(undefined);
/** A POST that sends nothing but says it is the desk's (`{}`). */
const nothing = z.object({});

const email = fieldSchema(EMAIL_FIELD);
const participant = fieldSchema({ ...EMAIL_FIELD, about: "the participant's e-mail address" });
const erasure = z
  .object({ email: participant, confirm: z.string('').trim() })
  .refine((input) => normalEmail(input.confirm) === normalEmail(input.email), {
    path: ['confirm'],
    message: "Type the participant's e-mail address again, exactly, to confirm.",
  });

const note = z
  .string('Please write the note as text.')
  .trim()
  .max(NOTE_MAX, `Please keep the note under ${NOTE_MAX.toLocaleString('en-US')} characters.`)
  .default('');
const day = (what: string) => z.iso.date({ error: `Please enter the ${what} as a date.` });
const time = z
  .union([
    z.literal(''),
    z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'Please enter a time like 14:30.'),
  ])
  .optional()
  .transform((value) => value || undefined);
const block = z
  .object({ from: day('first day'), to: day('last day'), fromTime: time, toTime: time, note })
  .refine((input) => input.to >= input.from, {
    path: ['to'],
    message: 'The last day must not be before the first day.',
  });

const bookingId = z.uuid('Please choose a booking from the list.');
const payable = z.enum(['session', 'place'], 'Please choose a session or a place in a class.');
const booking = z.object({
  kind: z.enum(['consultation', 'session', 'place'], 'Please choose a booking from the list.'),
  id: bookingId,
});
const AMOUNT = 'Please write the amount in dollars, like 45 or 22.50.';
/** Dollars as she types them ("45", "$22.50"), in cents; empty: all that is left. */
const amount = z
  .string(AMOUNT)
  .trim()
  .optional()
  .transform((text) => text || undefined)
  .pipe(
    z
      .string()
      .regex(/^\$?\d{1,6}(\.\d{1,2})?$/, AMOUNT)
      .transform((text) => Math.round(Number(text.replace('$', '')) * 100))
      .refine(
        (cents) => cents > 0,
        'Please write an amount above $0, or leave it empty for all of it.',
      )
      .optional(),
  );

/** A whole number she types in a form ("55"), within bounds; empty: left out. */
const whole = (min: number, max: number, words: string) =>
  z
    .string(words)
    .trim()
    .optional()
    .transform((text) => text || undefined)
    .pipe(
      z
        .string()
        .regex(/^\d{1,4}$/, words)
        .transform(Number)
        .refine((n) => n >= min && n <= max, words)
        .optional(),
    );
const PRICE = 'Please write the price in dollars, like 45 or 22.50, or leave it empty.';
/** A single class date added on the desk: a class of her timetable, or one with its own name. */
const singleDate = z.object({
  class: z
    .string('Please choose a class of your timetable, or another class.')
    .trim()
    .max(200, 'Please choose a class of your timetable, or another class.')
    .default(''),
  name: z
    .string('Please name the class.')
    .trim()
    .max(80, 'Please keep the name under 80 characters.')
    .default(''),
  date: day('date'),
  time: z
    .string('Please enter a time like 18:00.')
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'Please enter a time like 18:00.'),
  lengthMinutes: whole(15, 240, 'Please write how long it lasts in minutes, from 15 to 240.'),
  capacity: whole(1, 20, 'Please write the number of places, from 1 to 20.'),
  price: z
    .string(PRICE)
    .trim()
    .optional()
    .transform((text) => text || undefined)
    .pipe(
      z
        .string()
        .regex(/^\$?\d{1,5}(\.\d{1,2})?$/, PRICE)
        .transform((text) => Math.round(Number(text.replace('$', '')) * 100))
        .refine((cents) => cents >= 100, 'Please write a price of at least $1.')
        .optional(),
    ),
});

/** What the desk says when an action on one booking changes nothing. */
const BOOKING_REFUSALS: Record<Refusal, [404 | 409, string]> = {
  missing: [404, 'There is no such booking (it may have been erased).'],
  'already-paid': [409, 'That booking is marked paid already.'],
  paying: [
    409,
    'That person is paying online right now: the booking shows as paid once the payment comes through.',
  ],
  cancelled: [409, 'That booking is cancelled already.'],
  'not-begun': [409, 'A booking can be marked a no-show once its time has begun.'],
  over: [409, 'That booking is over, so it can no longer be cancelled.'],
  'not-paid-online': [
    409,
    'That booking was not paid online, so there is nothing to refund here. Give back money paid at the studio as it was paid.',
  ],
  refunded: [409, 'That payment has been refunded in full already.'],
  'too-much': [409, 'That is more than is left to refund.'],
};

const FIND_PARTICIPANT = 'Please type at least two letters of a name, e-mail or phone.';
const kiosk = z.object({
  label: z
    .string('Please name the device.')
    .trim()
    .min(1, 'Please name the device, e.g. "Front desk tablet".')
    .max(80, 'Please keep the name under 80 characters.'),
});

export const api = new Hono<DeskEnv>()
  /**
   * The records desk's door: `{ email }` in, a sign-in link out to a staff address. Every request
   * gets the same answer after the same time, whether the address may sign in or not, and
   * whether a rate limit held its link back or not (src/server/auth/sign-in.ts).
   */
  .post('/sign-in', open({ maxBytes: 1024 }), body(z.object({ email })), async (c) => {
    const started = Date.now();
    const email = normalEmail(c.req.valid('json').email);
    if (await signInAllowed(c.req.raw, c.var.client.ip, email)) {
      const sending = await sendSignInLink(email);
      if (sending) await afterAnswer(c.env?.context, sending);
    }
    await steady(started);
    return answer(c, { message: SIGN_IN_SENT });
  })

  /** Who is signed in, and the desk's first screen in numbers. */
  .get('/session', signedIn(), async (c) => {
    const { staff } = c.var;
    const [undelivered, numbers] = await Promise.all([undeliveredCount(), counts()]);
    return answer(c, {
      email: staff.email,
      expiresAt: staff.expiresAt.toISOString(),
      fresh: staff.fresh,
      undelivered,
      counts: numbers,
    });
  })

  /**
   * Following a sign-in link (`{ token }`, spent once): starts a session cookie and remembers the
   * device. A link followed on a waiver kiosk is refused (409, the link unspent) unless it says
   * `endKiosk: true`: then the kiosk is turned off in the same transaction that signs her in.
   */
  .post(
    '/session',
    open({ onKiosk: true, maxBytes: 1024 }),
    body(z.object({ token: z.string().optional().catch(undefined), endKiosk: flag })),
    async (c) => {
      const req = c.req.raw;
      const { kiosk } = c.var;
      const { token, endKiosk } = c.req.valid('json');
      if (kiosk && endKiosk !== true) return refuse(c, 409, KIOSK_SIGN_IN, { reason: 'kiosk' });
      const session = await transaction(async (tx) => {
        const email = await useSignInLink(tx, token);
        if (!email || !isStaff(email)) return undefined;
        if (kiosk) {
          await turnOffThisKiosk(tx, kiosk);
          await logAccess({ email }, { action: 'kiosk-off', detail: { signIn: true } }, tx);
        }
        const started = await startSession(tx, email);
        const device = await rememberDevice(tx, req, email);
        await logAccess({ email }, { action: 'sign-in' }, tx);
        return { email, device, ...started };
      });
      if (!session) return refuse(c, 401, LINK_REFUSED);
      c.header('set-cookie', setSessionCookie(req, session.token, session.expiresAt));
      c.header('set-cookie', session.device, { append: true });
      if (kiosk) {
        for (const cookie of forgetKioskCookies(req))
          c.header('set-cookie', cookie, { append: true });
      }
      return answer(c, { email: session.email, expiresAt: session.expiresAt.toISOString() });
    },
  )

  /**
   * Signing out, here or everywhere (every session, unused link and remembered device of the
   * person).
   */
  .post('/sign-out', signedIn(), body(z.object({ everywhere: flag })), async (c) => {
    const { staff } = c.var;
    const everywhere = c.req.valid('json').everywhere === true;
    await transaction(async (tx) => {
      await (everywhere ? endEverySession(tx, staff) : endSession(tx, staff));
      if (everywhere) await forgetDevices(tx, staff.email);
      await logAccess(staff, { action: everywhere ? 'sign-out-everywhere' : 'sign-out' }, tx);
    });
    c.header('set-cookie', setSessionCookie(c.req.raw));
    if (everywhere) c.header('set-cookie', deviceCookie(c.req.raw), { append: true });
    return answer(c, {});
  })

  // ---- Waivers: find them; open one (its health information: logged); its signed PDF (logged).
  .get('/waivers', signedIn(), query(filtersQuery({})), async (c) =>
    answer(c, await searchWaivers(c.req.valid('query').filters)),
  )
  .get('/waivers/:id', signedIn(), async (c) => {
    const waiver = await waiverView(c.req.param('id'));
    if (!waiver) return refuse(c, 404);
    await logAccess(c.var.staff, {
      action: 'view-waiver',
      recordKind: 'waiver',
      recordId: waiver.id,
    });
    return answer(c, { id: waiver.id, waiver });
  })
  .get('/waivers/:id/pdf', signedIn(), async (c) => {
    const id = c.req.param('id');
    if (!isWaiverId(id)) return refuse(c, 404);
    // A PDF made before is sent as stored: the record is then read for its name and date only,
    // its health fields left sealed. A waiver never mailed has its PDF made now.
    const stored = await storedRecordsPdf(id);
    const record = await loadWaiver(id, { health: !stored });
    if (!record) return refuse(c, 404);
    const pdf = stored ?? (await recordsPdf(record));
    await logAccess(c.var.staff, {
      action: 'download-pdf',
      recordKind: 'waiver',
      recordId: record.id,
      detail: { sha256: pdf.sha256 },
    });
    return download(pdf.bytes, 'application/pdf', pdfName(record, 'records'));
  })

  // ---- Participants: everyone who signed with one address, in any case. The quick check by
  // name, e-mail or phone; one participant's status and waivers (reached through any of their
  // waivers' ids, so no address is in a URL); their health information (logged).
  .get(
    '/participants',
    signedIn(),
    query(
      z.object({
        q: queryText
          .transform((text) => text.slice(0, 200))
          .refine((text) => text.length >= 2, FIND_PARTICIPANT),
      }),
    ),
    async (c) => answer(c, { items: await searchParticipants(c.req.valid('query').q) }),
  )
  .get('/participants/:id', signedIn(), async (c) => {
    const participant = await participantView(c.req.param('id'));
    if (!participant) return refuse(c, 404);
    return answer(c, { id: participant.waiverId, participant });
  })
  .get('/participants/:id/health', signedIn(), async (c) => {
    const id = c.req.param('id');
    const health = await participantHealth(id);
    if (!health) return refuse(c, 404);
    await logAccess(c.var.staff, {
      action: 'view-participant-health',
      recordKind: 'waiver',
      recordId: id,
    });
    return answer(c, { id, health });
  })

  // ---- Versions: the waiver's texts as signed, and re-sign requests for a material new one.
  .get('/waiver-texts', signedIn(), async (c) => answer(c, await waiverTexts()))
  .get('/re-sign', signedIn(), async (c) => answer(c, { items: await reSignList() }))
  .post(
    '/re-sign',
    signedIn(),
    body(z.object({ waiverId: z.uuid('Please choose a participant from the list.').optional() })),
    async (c) => {
      const { mails, requested } = await requestReSign(
        c.var.staff,
        outbox,
        c.req.valid('json').waiverId,
      );
      if (mails.length > 0) await afterAnswer(c.env?.context, outbox.deliverNow(mails));
      return answer(c, { requested });
    },
  )

  // ---- Kiosks: the devices that are the studio's waiver kiosk; turning one on or off.
  .get('/kiosks', signedIn(), async (c) => answer(c, { items: await listKiosks(c.req.raw) }))
  .post('/kiosks', signedIn(), body(kiosk), async (c) => {
    const { staff } = c.var;
    const { label } = c.req.valid('json');
    // The desk session that asked ends with it: a kiosk is a device nobody of the studio is
    // signed in on, so the next person to hold it finds no desk behind the waiver form.
    const cookies = await transaction(async (tx) => {
      const set = await turnOnKiosk(tx, c.req.raw, staff, label);
      await logAccess(staff, { action: 'kiosk-on', detail: { label } }, tx);
      return set;
    });
    for (const cookie of cookies) c.header('set-cookie', cookie, { append: true });
    return answer(c, { kiosk: true, signedOut: true });
  })
  .post('/kiosks/:id/off', signedIn(), body(nothing), async (c) => {
    const id = c.req.param('id');
    const mine = await kioskOf(c.req.raw);
    const wasThisDevice = mine !== undefined && kioskId(mine) === id;
    if (!(await turnOffKiosk(id))) return refuse(c, 404);
    await logAccess(c.var.staff, { action: 'kiosk-off', detail: { id } });
    if (wasThisDevice) {
      for (const cookie of forgetKioskCookies(c.req.raw)) {
        c.header('set-cookie', cookie, { append: true });
      }
    }
    return answer(c, { id, off: true });
  })

  // ---- Messages: find them (all, the inbox, or the spam); "not spam" queues a message's mail,
  // once.
  .get(
    '/messages',
    signedIn(),
    query(filtersQuery({ show: z.enum(['all', 'inbox', 'spam']).optional().catch(undefined) })),
    async (c) => {
      const { filters, show = 'all' } = c.req.valid('query');
      return answer(c, await searchMessages(filters, show));
    },
  )
  .post('/messages/:id/not-spam', signedIn(), body(nothing), async (c) => {
    const id = c.req.param('id');
    const outcome = await markNotSpam(id, c.var.staff);
    if (!outcome) return refuse(c, 404);
    return answer(c, {
      id,
      queued: outcome.queued,
      sent: outcome.delivery ? outcome.delivery.sent > 0 : false,
    });
  })

  // ---- Consultations: the bookings to come and past, cancelling one (the visitor is told),
  // blocking time, the instructor's calendar's state, and the secret address of her feed.
  .get(
    '/consultations',
    signedIn(),
    query(filtersQuery({ when: z.enum(['upcoming', 'past']).optional().catch(undefined) })),
    async (c) => {
      const { filters, when = 'upcoming' } = c.req.valid('query');
      return answer(c, await listBookings(when, filters.after));
    },
  )
  .post('/consultations/:id/cancel', signedIn(), body(z.object({ note })), async (c) => {
    const id = c.req.param('id');
    const mails = await cancelFromDesk(id, c.req.valid('json').note, c.var.staff, outbox);
    if (!mails) {
      return refuse(
        c,
        409,
        'That consultation is not to come any more: it was cancelled already, or is over.',
      );
    }
    if (mails.length > 0) await afterAnswer(c.env?.context, outbox.deliverNow(mails));
    return answer(c, { id, cancelled: true });
  })
  .get('/consultations/calendar', signedIn(), async (c) => answer(c, await consultationsCalendar()))
  .post('/consultations/blocks', signedIn(), body(block), async (c) => {
    const added = await blockTime(c.req.valid('json'), c.var.staff);
    if (!added) return refuseFields(c, { toTime: 'The end must come after the start.' });
    return answer(c, added);
  })
  .post('/consultations/blocks/:id/remove', signedIn(), body(nothing), async (c) => {
    const id = c.req.param('id');
    if (!(await unblockTime(id, c.var.staff))) return refuse(c, 404);
    return answer(c, { id, removed: true });
  })
  .post('/consultations/feed', signedIn(), body(nothing), async (c) => {
    const token = await newFeedToken(c.var.staff);
    return answer(c, { url: `${siteOrigin()}/api/consultation/feed/${token}.ics` });
  })

  // ---- Bookings: consultations, sessions and classes of today and to come, and what she does
  // with them (each change in the access log: bookings.ts).
  .get('/bookings', signedIn(), async (c) => answer(c, await bookingsOverview()))
  .post(
    '/bookings/paid',
    signedIn(),
    body(z.object({ kind: payable, id: bookingId })),
    async (c) => {
      const { kind, id } = c.req.valid('json');
      const outcome = await markPaidAtStudio(c.var.staff, kind, id);
      if (!outcome.ok) return refuse(c, ...BOOKING_REFUSALS[outcome.why]);
      return answer(c, { id, paid: true });
    },
  )
  .post(
    '/bookings/no-show',
    signedIn(),
    body(
      z.object({
        kind: payable,
        id: bookingId,
        noShow: z.boolean('Please say whether they came.'),
      }),
    ),
    async (c) => {
      const { kind, id, noShow } = c.req.valid('json');
      const outcome = await markNoShow(c.var.staff, kind, id, noShow);
      if (!outcome.ok) return refuse(c, ...BOOKING_REFUSALS[outcome.why]);
      return answer(c, { id, noShow });
    },
  )
  .post('/bookings/cancel', signedIn(), body(booking.extend({ note })), async (c) => {
    const { kind, id, note } = c.req.valid('json');
    const outcome = await cancelOne(c.var.staff, kind, id, note);
    if (!outcome.ok) return refuse(c, ...BOOKING_REFUSALS[outcome.why]);
    await afterAnswer(c.env?.context, afterChange(outcome));
    return answer(c, {
      id,
      cancelled: true,
      refundedCents: outcome.refunds.reduce((sum, r) => sum + r.amountCents, 0),
    });
  })
  .post(
    '/bookings/cancel-class',
    signedIn(),
    body(
      z.object({
        key: z.string('Please choose a class from the list.').regex(/^[a-z0-9-]{1,120}$/, {
          error: 'Please choose a class from the list.',
        }),
        start: z.iso.datetime({ error: 'Please choose a class from the list.' }),
        note,
      }),
    ),
    async (c) => {
      const { key, start, note } = c.req.valid('json');
      const outcome = await cancelWholeClass(c.var.staff, key, new Date(start), note);
      if (!outcome.ok) {
        return outcome.why === 'missing'
          ? refuse(c, 404, 'There is no such class date in the timetable.')
          : outcome.why === 'over'
            ? refuse(c, 409, 'That class has begun, so it can no longer be cancelled.')
            : refuse(c, ...BOOKING_REFUSALS[outcome.why]);
      }
      await afterAnswer(c.env?.context, afterChange(outcome));
      return answer(c, { cancelled: true, told: outcome.told, refunds: outcome.refunds.length });
    },
  )
  .post('/bookings/add-class', signedIn(), body(singleDate), async (c) => {
    const input = c.req.valid('json');
    const added = await addSingleDate(c.var.staff, {
      from: input.class || undefined,
      name: input.name || undefined,
      date: input.date,
      time: input.time,
      lengthMinutes: input.lengthMinutes,
      capacity: input.capacity,
      priceCents: input.price,
    });
    if (!added.ok) return refuseFields(c, { [added.field]: added.words });
    return answer(c, {
      id: added.id,
      key: added.key,
      title: added.title,
      start: added.start,
      listedFrom: added.listedFrom,
    });
  })
  .post(
    '/bookings/refund',
    signedIn(),
    body(
      z.object({
        kind: payable,
        id: bookingId,
        amount,
        request: z.uuid('Please reload the page and press Refund again.'),
      }),
    ),
    async (c) => {
      const { kind, id, amount: cents, request } = c.req.valid('json');
      const outcome = await refundPayment(c.var.staff, kind, id, cents, request);
      if (!outcome.ok) {
        if (outcome.why === 'too-much' && outcome.most !== undefined) {
          return refuseFields(c, {
            amount: `At most ${dollars(outcome.most)} is left to refund.`,
          });
        }
        return refuse(c, ...BOOKING_REFUSALS[outcome.why]);
      }
      if (outcome.mails.length > 0) {
        await afterAnswer(c.env?.context, outbox.deliverNow(outcome.mails));
      }
      return answer(c, {
        id,
        refundedCents: outcome.refund.amountCents,
        confirmed: outcome.confirmed,
      });
    },
  )

  // ---- List: the Get Notified list's counts, its CSV, removing an address, and announcing an
  // event to it (once per event).
  .get('/list', signedIn(), async (c) => answer(c, await listOverview()))
  .get('/list/export', signedIn(), async (c) => {
    const { csv } = await listCsv(c.var.staff);
    const day = new Date().toISOString().slice(0, 10);
    return download(csv, 'text/csv; charset=utf-8', `get-notified-list-${day}.csv`);
  })
  .post(
    '/list/remove',
    signedIn(),
    body(
      z.object({
        email: z.email('Please enter an e-mail address, like name@example.com.').trim().max(254),
      }),
    ),
    async (c) => {
      if (!(await removeFromList(c.req.valid('json').email, c.var.staff))) {
        return refuse(c, 404, 'That address is not on the list.');
      }
      return answer(c, { removed: true });
    },
  )
  .post(
    '/list/announce',
    signedIn(),
    body(z.object({ eventId: z.string('Please choose an event.').min(1).max(200) })),
    async (c) => {
      const outcome = await announceEvent(c.req.valid('json').eventId, c.var.staff);
      if (!outcome.ok) {
        return outcome.why === 'already'
          ? refuse(c, 409, 'That event has been announced to the list already.')
          : refuse(c, 404, 'That event is not among the events to come.');
      }
      return answer(c, { recipients: outcome.recipients, lastDue: outcome.lastDue });
    },
  )

  // ---- Delivery: every mail still owed or given up on; "send again" for a failed one (logged).
  .get('/delivery', signedIn(), async (c) => {
    const [items, undelivered] = await Promise.all([undeliveredMail(), undeliveredCount()]);
    return answer(c, { items, undelivered, limit: LIST_LIMIT });
  })
  .post('/delivery/:id/send-again', signedIn(), body(nothing), async (c) => {
    const id = c.req.param('id');
    const outcome = await retryFailedMail(id, c.var.staff);
    if (!outcome) {
      return refuse(
        c,
        409,
        'That e-mail is not waiting to be sent again: it was sent, or is still being tried.',
      );
    }
    return answer(c, { id, sent: outcome.sent > 0 });
  })

  // ---- Export: CSV of the waivers (health columns only when asked for, with a sign-in under
  // FRESH_SIGN_IN_MINUTES old) or the messages of a date range. Downloaded by a plain form.
  .get(
    '/export/waivers',
    signedIn(),
    query(filtersQuery({ health: z.string().optional() })),
    async (c) => {
      const { filters, health } = c.req.valid('query');
      const withHealth = health === 'yes';
      if (withHealth && !c.var.staff.fresh) return freshSignInNeeded(c);
      const csv = await waiversCsv(filters, withHealth);
      return exportDownload(c.var.staff, 'waivers', filters, csv, { health: withHealth });
    },
  )
  .get('/export/messages', signedIn(), query(filtersQuery({})), async (c) => {
    const { filters } = c.req.valid('query');
    return exportDownload(c.var.staff, 'messages', filters, await messagesCsv(filters));
  })
  .get('/export/bookings', signedIn(), query(filtersQuery({})), async (c) => {
    const { filters } = c.req.valid('query');
    return exportDownload(c.var.staff, 'bookings', filters, await bookingsCsv(filters));
  })

  // ---- Erasure: what is held about an address; erasing all of it once the address is typed
  // again, with a sign-in under FRESH_SIGN_IN_MINUTES old.
  .post('/erasure/preview', signedIn(), body(z.object({ email: participant })), async (c) =>
    answer(c, { preview: await previewErasure(c.req.valid('json').email) }),
  )
  .post('/erasure', signedIn(), body(erasure), async (c) => {
    if (!c.var.staff.fresh) return freshSignInNeeded(c);
    return answer(c, { erased: await eraseParticipant(c.req.valid('json').email, c.var.staff) });
  })

  // ---- The access log (who did what to which record, newest first) and the retention panel
  // (when the next run is, and what it will remove).
  .get('/log', signedIn(), query(filtersQuery({})), async (c) =>
    answer(c, await accessLog(c.req.valid('query').filters.after)),
  )
  .get('/retention', signedIn(), async (c) => answer(c, await retentionPreview()));
