/**
 * What the pages about one place or offer say: a place's page (the confirmation, the manage link)
 * and a waitlist offer's page (the claim link), as models
 * (shared/classes/place-page.ts) that src/components/classes/PlacePage.astro draws in the site's layout (Astro escapes every value).
 */
import { CLASS_NOTICES } from '../../shared/classes/form';
import type { PlacePageModel } from '../../shared/classes/place-page';
import { siteFacts } from '../platform/site-facts';
import type { ClassDate, Seat, WaitEntry } from './store';
import { dollars } from '../../shared/money';
import { momentOf, whenOf } from './words';

function facts(date: ClassDate, timeZone: string, extra: [string, string][] = []) {
  const w = whenOf(date.start, date.end, timeZone);
  const { address, name } = siteFacts();
  return [
    ['Class', date.title],
    ['When', `${w.date}, ${w.time} (${w.zone})`],
    ['Where', `At the studio: ${address ?? name}`],
    ...extra,
  ] satisfies [string, string][];
}

/**
 * A place's page: what it is and, while it can be cancelled under the policy, a form that
 * cancels it (a POST: the page itself changes nothing).
 */
export function placeModel(
  seat: Seat,
  date: ClassDate,
  token: string,
  options: {
    timeZone: string;
    now: Date;
    policy: string;
    canCancel: boolean;
    done?: 'booked' | 'cancelled' | 'claimed';
    problem?: string;
  },
): PlacePageModel {
  const studio = siteFacts();
  if (
    seat.status === 'lapsed' ||
    (seat.payment === 'held' && (seat.heldUntil ?? options.now) <= options.now)
  ) {
    return {
      title: 'Your place was not kept',
      text: 'It was held for you while you paid online, and the payment did not reach us in time, so the place was given back.',
      checkout: { state: 'lapsed' },
      facts: facts(date, options.timeZone),
      next: 'classes',
    };
  }
  const held = seat.payment === 'held' && seat.status === 'booked';
  const cancelled = seat.status === 'cancelled';
  const over = date.end <= options.now;
  const [title, text] = cancelled
    ? [
        'Your place is cancelled',
        seat.cancelledBy === 'visitor'
          ? 'You cancelled your place. Thank you for letting us know.'
          : seat.cancelledBy === 'minimum'
            ? `Fewer than ${date.minimum} people booked this class, so it will not take place. Nothing is due.`
            : `${studio.instructor} had to cancel this class. We are sorry for the change of plan.`,
      ]
    : over
      ? ['Your class has taken place', 'Thank you for coming.']
      : held
        ? ['Your place', 'Your place in the class, waiting for your payment.']
        : options.done === 'booked' || options.done === 'claimed'
          ? [CLASS_NOTICES.booked.title, CLASS_NOTICES.booked.text]
          : ['Your place', 'Your place in the class, and how to cancel it.'];
  const due: [string, string] =
    seat.payment === 'paid'
      ? ['Paid', dollars(date.priceCents)]
      : seat.payment === 'held'
        ? [
            'Price',
            `${dollars(date.priceCents)}, paid online: waiting for Stripe to confirm the payment`,
          ]
        : ['Due at the studio', dollars(date.priceCents)];
  const upcoming = !cancelled && !over;
  return {
    title,
    text,
    problem: options.problem,
    cancelledNow: options.done === 'cancelled' && cancelled,
    facts: facts(date, options.timeZone, cancelled ? [] : [due]),
    ...(held && upcoming
      ? { checkout: { state: 'held', until: momentOf(seat.heldUntil!, options.timeZone) } }
      : {}),
    // Held while its checkout is open: not cancelled here until Stripe has its word.
    cancel:
      upcoming && !held
        ? { token, policy: options.policy, tooLate: !options.canCancel, email: studio.email }
        : undefined,
    next: upcoming ? 'waiver' : 'classes',
  };
}

/** A waitlist offer's page: the place held, until when, and the button that claims it. */
export function offerModel(
  entry: WaitEntry,
  date: ClassDate,
  token: string,
  timeZone: string,
  state: 'open' | 'lapsed' | 'closed',
  /** With the studio's Stripe keys set, claiming goes straight to Stripe's page to pay. */
  payOnline = false,
): PlacePageModel {
  if (state !== 'open') {
    return {
      title: state === 'lapsed' ? 'This offer has run out' : 'This place is no longer offered',
      text:
        state === 'lapsed'
          ? 'The place was held for you for a while, and has passed to the next person waiting.'
          : 'The waitlist of this class has closed, or the class is cancelled.',
      facts: facts(date, timeZone),
      next: 'classes',
    };
  }
  return {
    title: 'A place is free for you',
    text: `It is held for you until ${momentOf(entry.offerExpiresAt!, timeZone)}.`,
    facts: facts(date, timeZone, [
      [payOnline ? 'Price, paid online' : 'Due at the studio', dollars(date.priceCents)],
    ]),
    claim: { token, payOnline },
    next: 'nothing',
  };
}

/** A link that opens nothing (mistyped, cut short). */
export function unknownModel(what: 'place' | 'offer'): PlacePageModel {
  return {
    title:
      what === 'place' ? 'This link does not open a place' : 'This link does not open an offer',
    text: 'It may have been mistyped or cut short. Open the link from your e-mail again.',
    next: 'classes',
  };
}
