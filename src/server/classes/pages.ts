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
import { transaction } from '../platform/db';
import { siteFacts } from '../platform/site-facts';
import { isSameOrigin } from '../request/guard';
import type { LinkFault } from '../request/link-function';
import { refusalOf, seeOther, type ProblemPage, type Refused } from '../request/pages';
import { holdUntil, payOnline } from '../payments/checkout';
import { refundThenMail } from '../payments/refunds';
import { refundRest } from '../payments/store';
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
  loadPlace,
  placeByToken,
  placeToken,
  setWaitStatus,
  waitEntryByClaim,
  waitEntryByLeave,
  type Place,
} from './store';
import type { PlacePageModel } from '../../shared/classes/place-page';
import { cutoffOf } from './occurrences';
import { offerModel, placeModel, repeatModel, unknownModel, waitingModel } from './views';

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

async function placePage(
  req: Request,
  place: Place,
  options: { done?: 'booked' | 'cancelled' | 'claimed'; problem?: string; status?: number } = {},
): Promise<PlaceAnswer> {
  const date = await loadClassDate(place.classDateId);
  if (!date) return show(unknownModel('place'), 404);
  const settings = classSettings();
  const policy = placePolicy();
  const at = now();
  const view = placeModel(place, date, placeToken(place), {
    timeZone: settings.timeZone,
    now: at,
    policy: policy.words,
    canCancel: place.status === 'booked' && policy.canCancel(date.start, at),
    ...options,
  });
  return show(view, options.status);
}

/** A place held for a payment that did not come in time: its page says it was not kept. */
const lapsedHold = (place: Place) => place.status === 'lapsed' && place.payment === 'held';

/** GET /classes/manage?token=: the place, and the form that cancels it. Changes nothing. */
export async function showPlace(req: Request): Promise<PlaceAnswer> {
  const token = await tokenOf(req);
  if (!token && new URL(req.url).searchParams.get('repeat') !== null) return show(repeatModel());
  const place = token && (await placeByToken(token));
  if (!place || (place.status !== 'booked' && place.status !== 'cancelled' && !lapsedHold(place))) {
    return show(unknownModel('place'), 404);
  }
  const done = new URL(req.url).searchParams.get('done');
  return placePage(req, place, done === 'booked' || done === 'claimed' ? { done } : {});
}

/** POST /classes/manage: cancels the place within the policy; a repeat changes nothing more. */
export async function cancelFromLink(req: Request, outbox: ClassOutbox): Promise<PlaceAnswer> {
  // The one rule of every personal page: a POST from the site's own pages (request/guard.ts).
  if (!isSameOrigin(req)) return { response: crossSite() };
  const token = await tokenOf(req);
  const place = token && (await placeByToken(token));
  if (place && lapsedHold(place)) return placePage(req, place);
  if (!place || (place.status !== 'booked' && place.status !== 'cancelled')) {
    return show(unknownModel('place'), 404);
  }
  if (place.status === 'cancelled') return placePage(req, place, { done: 'cancelled' });
  if (place.payment === 'held') {
    return placePage(req, place, {
      problem:
        'Your place is waiting for your payment: it can be cancelled once Stripe has confirmed it.',
      status: 409,
    });
  }
  const date = await loadClassDate(place.classDateId);
  const policy = placePolicy();
  if (!date || !policy.canCancel(date.start, now())) {
    return placePage(req, place, {
      problem: `Your place cannot be cancelled from this page any more. ${policy.words}`,
      status: 409,
    });
  }
  // Paid online and cancelled within the policy: what is left of it refunded, once.
  const { mails, refunds } = await transaction(async (tx) => {
    const mails = await cancelPlace(tx, place.id, 'visitor', outbox);
    const refund = mails && (await refundRest(tx, 'place', place.id, 'visitor', 'policy'));
    return { mails, refunds: refund ? [refund] : [] };
  });
  await refundThenMail(stripeAccount(), refunds, mails ?? [], outbox);
  return placePage(req, (await loadPlace(place.id))!, { done: 'cancelled' });
}

/** GET /classes/claim?token=: the offer and the button that claims it. Changes nothing. */
export async function showOffer(req: Request): Promise<PlaceAnswer> {
  const token = await tokenOf(req);
  const entry = token && (await waitEntryByClaim(token));
  const date = entry && (await loadClassDate(entry.classDateId));
  if (!token || !entry || !date) {
    return show(unknownModel('offer'), 404);
  }
  if (entry.status === 'claimed' && entry.placeId) {
    const place = await loadPlace(entry.placeId);
    if (place) return placePage(req, place);
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
  // The one rule of every personal page: a POST from the site's own pages (request/guard.ts).
  if (!isSameOrigin(req)) return { response: crossSite() };
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
    const place = (await loadPlace(outcome.placeId))!;
    if (pay && offered && awaitsPayment(place)) {
      const checkout = await openPlaceCheckout(pay, place, offered, outbox, { claimed: true });
      if (checkout.ok) return { response: seeOther(checkout.value) };
      const page = classLinkFault('The offer')({ outage: true, status: 503 });
      const words = { ...page.words, text: checkout.problem.error };
      return refusalOf({ ...page, problem: checkout.problem, words });
    }
    return { response: seeOther(`${PAGES.classManage}?token=${placeToken(place)}&done=claimed`) };
  }
  if (outcome.kind === 'unknown') {
    return show(unknownModel('offer'), 404);
  }
  const entry = (await waitEntryByClaim(token))!;
  const date = (await loadClassDate(entry.classDateId))!;
  return show(offerModel(entry, date, token, classSettings().timeZone, outcome.kind), 409);
}

/** The waitlist page of the entry a leave token names, or 404. */
async function waitingPage(token: string | undefined, leftNow = false): Promise<PlaceAnswer> {
  const entry = token && (await waitEntryByLeave(token));
  const date = entry && (await loadClassDate(entry.classDateId));
  if (!token || !entry || !date) return show(unknownModel('waitlist'), 404);
  const settings = classSettings();
  return show(
    waitingModel(entry, date, token, {
      timeZone: settings.timeZone,
      cutoff: cutoffOf(date.start, settings),
      holdHours: settings.timetable.claimHoldHours,
      leftNow,
    }),
  );
}

/** GET /classes/waiting?token=: the class waited for, and the form that leaves it. Changes nothing. */
export async function showWaiting(req: Request): Promise<PlaceAnswer> {
  return waitingPage(await tokenOf(req));
}

/**
 * POST /classes/waiting: leaves the waitlist while still waiting (a place offered meanwhile is
 * claimed or let pass from its own mail); a repeat changes nothing more.
 */
export async function leaveFromLink(req: Request): Promise<PlaceAnswer> {
  if (!isSameOrigin(req)) return { response: crossSite() };
  const token = await tokenOf(req);
  if (!token) return show(unknownModel('waitlist'), 404);
  const left = await transaction(async (tx) => {
    const entry = await waitEntryByLeave(token, tx);
    if (!entry || (entry.status !== 'waiting' && entry.status !== 'spam')) return false;
    await setWaitStatus(tx, entry.id, 'left');
    return true;
  });
  return waitingPage(token, left);
}

/**
 * The words of a fault behind a class's mailed link (the place's page, the waitlist's offer):
 * `what` is what could not be opened, "Your place" or "The offer".
 */
export function classLinkFault(what: 'Your place' | 'The offer' | 'Your place on the waitlist') {
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
