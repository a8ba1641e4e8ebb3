/**
 * What the pages about one place or offer say: a place's page (the confirmation, the manage link)
 * and a waitlist offer's page (the claim link), as models
 * (shared/classes/place-page.ts) that src/components/classes/PlacePage.astro draws in the site's layout (Astro escapes every value).
 */
import { CLASS_NOTICES } from '../../shared/classes/form';
import type { PlacePageModel } from '../../shared/classes/place-page';
import { siteFacts } from '../platform/site-facts';
import type { ClassDate, Place, WaitEntry } from './store';
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
  place: Place,
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
    place.status === 'lapsed' ||
    (place.payment === 'held' && (place.heldUntil ?? options.now) <= options.now)
  ) {
    return {
      title: 'Your place was not kept',
      text: 'It was held for you while you paid online, and the payment did not reach us in time, so the place was given back.',
      checkout: { state: 'lapsed' },
      facts: facts(date, options.timeZone),
      next: 'classes',
    };
  }
  const held = place.payment === 'held' && place.status === 'booked';
  const cancelled = place.status === 'cancelled';
  const over = date.end <= options.now;
  const [title, text] = cancelled
    ? [
        'Your place is cancelled',
        place.cancelledBy === 'visitor'
          ? 'You cancelled your place. Thank you for letting us know.'
          : place.cancelledBy === 'minimum'
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
    place.payment === 'paid'
      ? ['Paid', dollars(date.priceCents)]
      : place.payment === 'held'
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
      ? { checkout: { state: 'held', until: momentOf(place.heldUntil!, options.timeZone) } }
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

/**
 * The page of one person on a class's waitlist (joined just now, or the link in the mail saying
 * so): the class, what happens next, and the form that leaves the waitlist while they wait.
 */
export function waitingModel(
  entry: WaitEntry,
  date: ClassDate,
  token: string,
  options: { timeZone: string; cutoff: Date; holdHours: number; leftNow?: boolean },
): PlacePageModel {
  const hold = `${options.holdHours} ${options.holdHours === 1 ? 'hour' : 'hours'}`;
  switch (entry.status) {
    case 'left':
      return {
        title: 'You have left the waitlist',
        text: options.leftNow
          ? 'You will not be offered a place in this class. Thank you for letting us know.'
          : 'You left the waitlist of this class: no place will be offered to you.',
        facts: facts(date, options.timeZone),
        next: 'classes',
      };
    case 'offered':
      return {
        title: 'A place is held for you',
        text: 'A place came free: claim it from the e-mail we sent you, or let it pass to the next person waiting.',
        facts: facts(date, options.timeZone),
        next: 'nothing',
      };
    case 'claimed':
      return {
        title: 'You have a place in this class',
        text: 'You claimed a place that came free: its page is in the e-mail confirming it.',
        facts: facts(date, options.timeZone),
        next: 'waiver',
      };
    case 'closed':
    case 'lapsed':
      return {
        title: 'The waitlist of this class has closed',
        text: 'No place is offered to you in this class.',
        facts: facts(date, options.timeZone),
        next: 'classes',
      };
    default:
      return {
        title: CLASS_NOTICES.waiting.title,
        text: `If a place comes free before ${momentOf(options.cutoff, options.timeZone)}, you get an e-mail with a link that holds it for you for ${hold}. After that, the waitlist closes.`,
        facts: facts(date, options.timeZone),
        leave: { token },
        next: 'waiver',
      };
  }
}

/** A link that opens nothing (mistyped, cut short). */
/**
 * The answer to a class form sent again without script (Back and send, a double click): the
 * place it booked stands, and its link is in the confirmation mail. The same to anyone, so it
 * tells nobody whether any place exists.
 */
export function repeatModel(): PlacePageModel {
  return {
    title: 'This form was already sent',
    text: 'If it booked a place, that place stands, and the confirmation e-mail has the link to cancel it.',
    next: 'classes',
  };
}

export function unknownModel(what: 'place' | 'offer' | 'waitlist'): PlacePageModel {
  return {
    title:
      what === 'place'
        ? 'This link does not open a place'
        : what === 'offer'
          ? 'This link does not open an offer'
          : 'This link does not open a waitlist',
    text: 'It may have been mistyped or cut short. Open the link from your e-mail again.',
    next: 'classes',
  };
}
