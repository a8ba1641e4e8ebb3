/**
 * The list's mails, composed by the outbox from their refs:
 *
 * - `list-confirm` (`<subscriber id>:<confirmation id>`): the link that confirms a sign-up. The
 *   address was typed by anyone and nobody verified it, so the mail holds the studio's words and
 *   the link, nothing else. A link used, expired, or made before the address unsubscribed is no
 *   longer owed (`nothingToSend`).
 * - `list-announcement` (`<subscriber id>:<announcement id>`): one event, to one confirmed
 *   address. Checked again when it is sent: an address that unsubscribed meanwhile gets nothing.
 *
 * Every list mail carries `List-Id`, `List-Unsubscribe` (the https link of its address) with
 * `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058), a visible unsubscribe link and
 * the studio's postal address. Links start at the site's own address (`siteOrigin()`).
 */
import type { AnnounceableEvent } from '../../shared/list';
import { PAGES } from '../../shared/site-paths';
import { siteOrigin } from '../platform/hosting';
import { mailBody, type Block } from '../mail/blocks';
import { type Mail } from '../platform/mail';
import { nothingToSend, type NothingToSend } from '../platform/outbox';
import { contentPath } from '../platform/paths';
import { query } from '../platform/db';
import { siteFacts } from '../platform/site-facts';
import {
  CONFIRM_HOURS,
  confirmationByRef,
  subscriberById,
  type Confirmation,
  type Subscriber,
} from './store';
import { openStoredToken } from '../platform/tokens';
import { CONFIRM_TOKEN_FIELD, UNSUBSCRIBE_TOKEN_FIELD } from './tokens';

type Composed = Promise<Mail | NothingToSend | undefined>;

/**
 * Every list mail carries the studio's postal address (the mail's footer writes it): without one
 * in content/site.yaml, no list mail goes out.
 */
function postalAddressOnFile(): void {
  if (!siteFacts().address) {
    throw new Error(`${contentPath('site.yaml')}: address is missing or not valid`);
  }
}

export const confirmUrl = (confirmation: Pick<Confirmation, 'id' | 'link'>) =>
  `${siteOrigin()}${PAGES.listConfirm}?token=${openStoredToken(CONFIRM_TOKEN_FIELD, confirmation.id, confirmation.link)}`;

export const unsubscribeUrl = (subscriber: Pick<Subscriber, 'id' | 'link'>) =>
  `${siteOrigin()}${PAGES.listUnsubscribe}?token=${openStoredToken(UNSUBSCRIBE_TOKEN_FIELD, subscriber.id, subscriber.link)}`;

/** The list's id (RFC 2919): `events.` and the studio's mail domain. */
function listHeaders(subscriber: Pick<Subscriber, 'id' | 'link'>): Pick<Mail, 'list' | 'headers'> {
  const studio = siteFacts();
  const domain = studio.email.split('@').pop() ?? 'localhost';
  return {
    list: {
      id: { url: `events.${domain}`, comment: `${studio.name} events` },
      unsubscribe: { url: unsubscribeUrl(subscriber), comment: 'Unsubscribe' },
    },
    headers: { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  };
}

type Line = Block;

/** The blocks of a list mail, with the footer every list mail has (the postal address: mailBody). */
const body = (lines: Line[], footer: Line[]) => mailBody(lines, footer);

/** The confirmation of a sign-up: the link to press, valid for 48 hours. */
export async function confirmMail(ref: string): Composed {
  const confirmation = await confirmationByRef(ref);
  if (!confirmation) return undefined;
  if (confirmation.used) return nothingToSend('already confirmed');
  if (confirmation.expired) return nothingToSend('link expired');
  if (confirmation.superseded) return nothingToSend('address unsubscribed since');
  const subscriber = await subscriberById(confirmation.subscriberId);
  if (!subscriber) return undefined;
  const studio = siteFacts();
  postalAddressOnFile();
  return {
    to: confirmation.email,
    subject: `Please confirm: ${studio.name} event announcements`,
    ...body(
      [
        'Hello,',
        `Someone, we hope you, asked ${studio.name} to e-mail this address when new event dates are announced.`,
        {
          text: `To join the list, open this link within ${CONFIRM_HOURS} hours and press Confirm:`,
          link: confirmUrl(confirmation),
          label: 'Confirm my address',
        },
        'If it was not you, ignore this e-mail: without a confirmation we send nothing more.',
        `${studio.instructor}, ${studio.name}`,
      ],
      [],
    ),
    ...listHeaders(subscriber),
  };
}

/** One event's announcement to one confirmed address. */
export async function announcementMail(ref: string): Composed {
  const [subscriberId, announcementId] = ref.split(':');
  if (!subscriberId || !announcementId || !/^\d+$/.test(announcementId)) return undefined;
  const [subscriber, [announcement]] = await Promise.all([
    subscriberById(subscriberId),
    query<{ event: AnnounceableEvent }>(`SELECT event FROM list_announcements WHERE id = $1`, [
      announcementId,
    ]),
  ]);
  if (!subscriber || !announcement) return undefined;
  if (!subscriber.listed) return nothingToSend('not on the list (unsubscribed or unconfirmed)');
  const { event } = announcement;
  const studio = siteFacts();
  postalAddressOnFile();
  const unsubscribe = unsubscribeUrl(subscriber);
  return {
    to: subscriber.email,
    subject: `New at ${studio.name}: ${event.title}, ${event.when.split(',').slice(0, 2).join(',')}`,
    ...body(
      [
        'Hello,',
        `Dates are announced: ${event.title}.`,
        `When: ${event.when}\nWhere: ${event.place}\nPrice: ${event.price}`,
        event.summary,
        {
          text: 'Everything about it, how to book, and a file for your calendar:',
          link: `${siteOrigin()}${event.path}`,
          label: `${event.title} on our website`,
        },
        `${studio.instructor}, ${studio.name}`,
      ],
      [
        `You get this e-mail because you asked ${studio.name} to tell you when event dates are announced, and confirmed it.`,
        {
          text: 'Unsubscribe: one click, and no more of them.',
          link: unsubscribe,
          label: 'Unsubscribe',
        },
      ],
    ),
    ...listHeaders(subscriber),
  };
}
