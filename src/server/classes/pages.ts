/**
 * What the pages about one place or one offer (the manage link, the claim link), rendered on
 * demand (src/pages/classes/manage.astro and claim.astro, through src/server/pages/classes.ts),
 * show: a page's model and its status, or an answer of its own (a 303, a refusal).
 *
 * The links' GET shows and changes nothing (mail scanners open links); only their POST acts, and
 * repeating it changes nothing more.
 */
import { isToken } from '../platform/tokens';
import { now } from '../platform/clock';
import { acceptedOrigins } from '../platform/hosting';
import { transaction } from '../platform/db';
import { siteFacts } from '../platform/site-facts';
import type { LinkFault } from '../request/link-function';
import { refusalOf, seeOther, type ProblemPage, type Refused } from '../request/pages';
import { holdUntil, payOnline } from '../payments/checkout';
import { refundThenMail } from '../payments/refunds';
import { refundInFull } from '../payments/store';
import { stripeAccount } from '../payments/stripe';
import { awaitsPayment, openPlaceCheckout } from './payment';
import { CLASS_LABELS, classProblemNotice } from '../../shared/classes/form';
import { PAGES } from '../../shared/site-paths';
import { refused } from '../request/responses';
import { cancelPlace, claimOffer, type ClassOutbox } from './engine';
import { placePolicy } from './policy';
import { classSettings } from './settings';
import {
  loadClassDate,
  loadSeat,
  seatByToken,
  seatToken,
  waitEntryByClaim,
  type Seat,
} from './store';
import type { PlacePageModel } from '../../shared/classes/place-page';
import { offerModel, placeModel, unknownModel } from './views';

/** A page about one place or offer to show, with its status; or an answer of its own. */
export type PlaceAnswer =
  { page: PlacePageModel; status: number } | { response: Response } | Refused;

const show = (page: PlacePageModel, status = 200): PlaceAnswer => ({ page, status });

/** The token of a link: `?token=` on a GET, the form's `token` field on a POST. */
async function tokenOf(req: Request): Promise<string | undefined> {
  if (req.method === 'POST') {
    const type = req.headers.get('content-type') ?? '';
    if (!type.startsWith('application/x-www-form-urlencoded')) return undefined;
    const text = await req.text();
    if (text.length > 4096) return undefined;
    const token = new URLSearchParams(text).get('token') ?? undefined;
    return isToken(token) ? token : undefined;
  }
  const token = new URL(req.url).searchParams.get('token') ?? undefined;
  return isToken(token) ? token : undefined;
}

/** The answer to a POST from another site's page: nothing changed. */
const crossSite = () =>
  refused({
    status: 403,
    error: "This can only be sent from the studio's own pages, so nothing was changed.",
  });

/** Whether a POST comes from the site's own pages (a form elsewhere cannot act on a link). */
function sameOrigin(req: Request): boolean {
  const origin = req.headers.get('origin');
  return origin === null || acceptedOrigins().has(origin);
}

async function placePage(
  req: Request,
  seat: Seat,
  options: { done?: 'booked' | 'cancelled' | 'claimed'; problem?: string; status?: number } = {},
): Promise<PlaceAnswer> {
  const date = await loadClassDate(seat.classDateId);
  if (!date) return show(unknownModel('place'), 404);
  const settings = classSettings();
  const policy = placePolicy();
  const at = now();
  const view = placeModel(seat, date, seatToken(seat), {
    timeZone: settings.timeZone,
    now: at,
    policy: policy.words,
    canCancel: seat.status === 'booked' && policy.canCancel(date.start, at),
    ...options,
  });
  return show(view, options.status);
}

/** A place held for a payment that did not come in time: its page says it was not kept. */
const lapsedHold = (seat: Seat) => seat.status === 'lapsed' && seat.payment === 'held';

/** GET /classes/manage?token=: the place, and the form that cancels it. Changes nothing. */
export async function showPlace(req: Request): Promise<PlaceAnswer> {
  const token = await tokenOf(req);
  const seat = token && (await seatByToken(token));
  if (!seat || (seat.status !== 'booked' && seat.status !== 'cancelled' && !lapsedHold(seat))) {
    return show(unknownModel('place'), 404);
  }
  const done = new URL(req.url).searchParams.get('done');
  return placePage(req, seat, done === 'booked' || done === 'claimed' ? { done } : {});
}

/** POST /classes/manage: cancels the place within the policy; a repeat changes nothing more. */
export async function cancelFromLink(req: Request, outbox: ClassOutbox): Promise<PlaceAnswer> {
  if (!sameOrigin(req)) return { response: crossSite() };
  const token = await tokenOf(req);
  const seat = token && (await seatByToken(token));
  if (seat && lapsedHold(seat)) return placePage(req, seat);
  if (!seat || (seat.status !== 'booked' && seat.status !== 'cancelled')) {
    return show(unknownModel('place'), 404);
  }
  if (seat.status === 'cancelled') return placePage(req, seat, { done: 'cancelled' });
  if (seat.payment === 'held') {
    return placePage(req, seat, {
      problem:
        'Your place is waiting for your payment: it can be cancelled once Stripe has confirmed it.',
      status: 409,
    });
  }
  const date = await loadClassDate(seat.classDateId);
  const policy = placePolicy();
  if (!date || !policy.canCancel(date.start, now())) {
    return placePage(req, seat, {
      problem: `Your place cannot be cancelled from this page any more. ${policy.words}`,
      status: 409,
    });
  }
  // Paid online and cancelled within the policy: refunded in full, once (docs/payments.md).
  const { mails, refunds } = await transaction(async (tx) => {
    const mails = await cancelPlace(tx, seat.id, 'visitor', outbox);
    return { mails, refunds: mails ? await refundInFull(tx, 'class', seat.id, 'visitor') : [] };
  });
  await refundThenMail(stripeAccount(), refunds, mails ?? [], (ids) => outbox.deliverNow(ids));
  return placePage(req, (await loadSeat(seat.id))!, { done: 'cancelled' });
}

/** GET /classes/claim?token=: the offer and the button that claims it. Changes nothing. */
export async function showOffer(req: Request): Promise<PlaceAnswer> {
  const token = await tokenOf(req);
  const entry = token && (await waitEntryByClaim(token));
  const date = entry && (await loadClassDate(entry.classDateId));
  if (!token || !entry || !date) {
    return show(unknownModel('offer'), 404);
  }
  if (entry.status === 'claimed' && entry.seatId) {
    const seat = await loadSeat(entry.seatId);
    if (seat) return placePage(req, seat);
  }
  const open =
    entry.status === 'offered' && entry.offerExpiresAt !== null && entry.offerExpiresAt > now();
  const state = open
    ? 'open'
    : entry.status === 'offered' || entry.status === 'lapsed'
      ? 'lapsed'
      : 'closed';
  const pay = payOnline(date.priceCents) !== undefined;
  return show(offerModel(entry, date, token, classSettings().timeZone, state, pay));
}

/**
 * POST /classes/claim: takes the place the offer holds; then its page (303). With the studio's
 * Stripe keys set, the claim goes straight to payment: the place is held while its checkout is
 * open and the answer is a 303 to Stripe's page (a repeat, to the same checkout); Stripe down,
 * the offer holds as it was and the page says so.
 */
export async function claimFromLink(req: Request, outbox: ClassOutbox): Promise<PlaceAnswer> {
  if (!sameOrigin(req)) return { response: crossSite() };
  const token = await tokenOf(req);
  if (!token) return show(unknownModel('offer'), 404);
  const offer = await waitEntryByClaim(token);
  const offered = offer && (await loadClassDate(offer.classDateId));
  const pay = offered ? payOnline(offered.priceCents) : undefined;
  const outcome = await transaction((tx) =>
    claimOffer(tx, token, outbox, pay ? holdUntil() : undefined),
  );
  if (outcome.kind === 'claimed' || outcome.kind === 'already') {
    if (outcome.kind === 'claimed') await outbox.deliverNow(outcome.mails);
    const seat = (await loadSeat(outcome.seatId))!;
    if (pay && offered && awaitsPayment(seat)) {
      const checkout = await openPlaceCheckout(pay, seat, offered, outbox, { claimed: true });
      if (checkout.ok) return { response: seeOther(checkout.value) };
      const page = classLinkFault('The offer')({ outage: true, status: 503 });
      const words = { ...page.words, text: checkout.problem.error };
      return refusalOf({ ...page, problem: checkout.problem, words });
    }
    return { response: seeOther(`${PAGES.classManage}?token=${seatToken(seat)}&done=claimed`) };
  }
  if (outcome.kind === 'unknown') {
    return show(unknownModel('offer'), 404);
  }
  const entry = (await waitEntryByClaim(token))!;
  const date = (await loadClassDate(entry.classDateId))!;
  return show(offerModel(entry, date, token, classSettings().timeZone, outcome.kind), 409);
}

/**
 * The words of a fault behind a class's mailed link (the place's page, the waitlist's offer):
 * `what` is what could not be opened, "Your place" or "The offer".
 */
export function classLinkFault(what: 'Your place' | 'The offer') {
  return ({ outage, status, headers }: LinkFault): ProblemPage => {
    const problem = {
      status,
      error: outage
        ? `${what} cannot be opened just now, so nothing was changed. Please try again in a minute.`
        : 'Something went wrong on our side, so nothing was changed. Please try again.',
      headers,
    };
    return {
      problem,
      words: {
        ...classProblemNotice(problem, siteFacts().email),
        title: `${what} cannot be opened just now`,
      },
      labels: CLASS_LABELS,
      formPage: { href: PAGES.classes, label: 'Return to the classes' },
    };
  };
}
