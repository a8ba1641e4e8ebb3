/**
 * What the classes' pages rendered on demand ask of the server: /classes (src/pages/classes.astro)
 * the classes of the coming weeks with their places left now and the studio's cancellation
 * policy; a place's page and a waitlist offer's (classes/manage.astro, classes/claim.astro) what
 * to show, or an answer of their own. The one door from src/pages into src/server
 * (eslint.config.js).
 */
import type { ClassListing } from '../../shared/classes/form';
import { upcomingClasses } from '../classes/engine';
import { placePolicy } from '../classes/policy';
import { classSettings } from '../classes/settings';
import { dollars } from '../../shared/money';
import { whenOf } from '../classes/words';
import { methodNotAllowed } from '../request/responses';
import { linkFault } from '../request/link-function';
import {
  cancelFromLink,
  claimFromLink,
  classLinkFault,
  leaveFromLink,
  showOffer,
  showPlace,
  showWaiting,
  type PlaceAnswer,
} from '../classes/pages';
import { outbox } from '../mail-kinds';
import { PERSONAL } from '../platform/on-demand';
import { PAGES } from '../../shared/site-paths';
import { payOnline } from '../payments/checkout';
import { stripeAccount } from '../payments/stripe';

export { methodNotAllowed };

/** The timetable of the coming weeks, with the places left right now. */
export async function classesNow(): Promise<{
  classes: ClassListing[];
  policy: string;
  /** The studio's Stripe keys are set: places are paid online when booked. */
  payOnline: boolean;
}> {
  const { timeZone, timetable } = classSettings();
  const views = await upcomingClasses();
  // A class of the timetable is described there; a single date of its own name is not.
  const described = new Map(
    timetable.classes.flatMap((entry) =>
      entry.description ? [[entry.name, entry.description] as const] : [],
    ),
  );
  return {
    policy: placePolicy().words,
    payOnline: stripeAccount() !== undefined,
    classes: views.map((view) => {
      const w = whenOf(view.start, view.end, timeZone);
      return {
        key: view.key,
        start: view.start.toISOString(),
        title: view.title,
        date: w.date,
        time: w.time,
        short: w.short,
        capacity: view.capacity,
        placesLeft: view.placesLeft,
        price: view.priceCents / 100,
        priceLabel: dollars(view.priceCents),
        payOnline: payOnline(view.priceCents) !== undefined,
        state: view.state,
        ...(view.why && { why: view.why }),
        ...(described.get(view.title) && { description: described.get(view.title) }),
      };
    }),
  };
}

/**
 * GET shows and changes nothing (mail scanners open links), POST acts, anything else is 405; a
 * fault is logged by name only and answered with a page saying so.
 */
async function linkAnswer(
  path: string,
  request: Request,
  handlers: { GET: () => Promise<PlaceAnswer>; POST: () => Promise<PlaceAnswer> },
  what: 'Your place' | 'The offer' | 'Your place on the waitlist',
): Promise<PlaceAnswer> {
  try {
    if (request.method === 'POST') return await handlers.POST();
    if (request.method === 'GET' || request.method === 'HEAD') return await handlers.GET();
    return { response: methodNotAllowed('GET, HEAD, POST') };
  } catch (error) {
    return linkFault(path, error, classLinkFault(what));
  }
}

/** The page of one place, opened from the link in its mails: GET shows it; POST cancels it. */
export function placeAnswer(request: Request): Promise<PlaceAnswer> {
  return linkAnswer(
    PAGES.classManage,
    request,
    { GET: () => showPlace(request), POST: () => cancelFromLink(request, outbox) },
    'Your place',
  );
}

/** A waitlist offer, opened from the link in its mail: GET shows it; POST claims the place. */
export function offerAnswer(request: Request): Promise<PlaceAnswer> {
  return linkAnswer(
    PAGES.classClaim,
    request,
    { GET: () => showOffer(request), POST: () => claimFromLink(request, outbox) },
    'The offer',
  );
}

/**
 * A place on a waitlist, from the page joining leads to or the link in the mail saying so: GET
 * shows it; POST leaves the waitlist.
 */
export function waitingAnswer(request: Request): Promise<PlaceAnswer> {
  return linkAnswer(
    PAGES.classWaiting,
    request,
    { GET: () => showWaiting(request), POST: () => leaveFromLink(request) },
    'Your place on the waitlist',
  );
}

/**
 * Puts a place's or an offer's answer on the page's response (`Astro.response`): its status, and
 * the headers of a personal page (never cached, never indexed, no Referer) with any its refusal
 * adds.
 */
export function personalPage(
  response: { status?: number; headers: Headers },
  answer: Exclude<PlaceAnswer, { response: Response }>,
): void {
  response.status = answer.status;
  const headers = { ...PERSONAL, ...('refusal' in answer ? answer.headers : {}) };
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
}
