/**
 * The paths of the site's pages that code links to, answers with or sends a visitor to, each
 * written once (the pages themselves are files under src/pages/). A function's `config.path`
 * stays a literal, because Netlify reads it from the source; tests/unit/site-paths.test.ts
 * checks those against this list.
 */
export const PAGES = {
  home: '/',
  /** Why a form sent without script was not accepted (its words in the address, vouched for). */
  refused: '/refused',
  contact: '/contact',
  /** Where a message sent without script lands once it is stored. */
  contactSent: '/contact/sent',
  waiver: '/waiver',
  /** Where a waiver sent without script lands once it is stored. */
  waiverSigned: '/waiver/signed',
  /** The free consultation times, and the booking form. */
  consultation: '/consultation',
  /** Where a booking sent without script is sent again (307) when its slot was taken meanwhile. */
  consultationTaken: '/consultation/taken',
  /** The page that manages one booking (its token in `?token=`), and the confirmation after booking. */
  manage: '/consultation/manage',
  /** The services, among them the sessions booked on the site. */
  services: '/services',
  /** The page of one session (its token in `?token=`; its forms post to it), and the confirmation after booking. */
  sessionManage: '/book/manage',
  /** The small group classes' timetable, where a place is booked or a waitlist joined. */
  classes: '/classes',
  /** The page of one place in a class (its token in `?token=`), and the confirmation after booking. */
  classManage: '/classes/manage',
  /** A waitlist's offer of a place (its token in `?token=`). */
  classClaim: '/classes/claim',
  /** Where joining a waitlist without script lands. */
  classWaiting: '/classes/waiting',
  events: '/events',
  /** Where a sign-up lands: the same page for a new address, a known one, and a spam post. */
  listSent: '/notify/sent',
  listConfirm: '/notify/confirm',
  listUnsubscribe: '/notify/unsubscribe',
  desk: '/records',
  deskSignIn: '/records/sign-in',
} as const;

/** The page of one booking, relative to the site: where it is moved or cancelled. */
export const managePath = (token: string) => `${PAGES.manage}?token=${token}`;
