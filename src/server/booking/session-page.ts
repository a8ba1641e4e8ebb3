/**
 * What the booking page of one session type shows right now (/book/<type>): the session, where,
 * what is due, the cancellation policy, and its free times (session-offer.ts). Read only: the
 * page (an Astro page rendered on demand) passes it to its component
 * (src/components/booking/SessionBooking.astro). `undefined` for a type content does not offer.
 */
import type { SessionPageData } from '../../shared/booking/session-form';
import { waiverBeforeBooking } from '../../shared/waiver';
import { zoneName } from '../../shared/time-format';
import { siteFacts } from '../platform/site-facts';
import { sessionPolicy, sessionType } from './policy';
import { outsideAreas } from './session-book';
import { dollars } from '../../shared/money';
import { payOnline } from '../payments/checkout';
import { sessionSlots, type SessionOfferOptions } from './session-offer';

export async function sessionPageData(
  id: string,
  options: SessionOfferOptions = {},
): Promise<SessionPageData | undefined> {
  const policy = sessionPolicy();
  const type = sessionType(id, policy);
  if (!type) return undefined;
  const studio = siteFacts();
  const amount = dollars(Math.round(type.price * 100));
  const days = await sessionSlots(type, options);
  return {
    type: {
      id: type.id,
      title: type.title,
      price: type.price,
      lengthMinutes: type.lengthMinutes,
      where: type.where,
      areas: type.areas,
      travelMinutes: type.travelMinutes,
    },
    place:
      type.where === 'home'
        ? `At your address, in the ZIP codes ${type.areas.join(', ')}`
        : `At the studio: ${policy.studioAddress}`,
    due: payOnline(type.price)
      ? `${amount}, paid online when you book, on Stripe's secure page`
      : type.where === 'home'
        ? `${amount}, paid at your session`
        : `${amount}, paid at the studio`,
    policy: policy.hours.cancellationPolicy,
    zoneNote: `Times are ${zoneName(policy.timeZone)}, the studio's time zone.`,
    studioEmail: studio.email,
    days,
    outsideWords: outsideAreas(type),
    waiverNote: waiverBeforeBooking('session'),
  };
}
