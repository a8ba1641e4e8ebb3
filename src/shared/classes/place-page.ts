/**
 * What the page of one place in a class or of one waitlist offer shows (server/classes/views.ts
 * makes it, components/classes/PlacePage.astro draws it).
 * Top to bottom.
 */
export interface PlacePageModel {
  title: string;
  text: string;
  /** What went wrong with the form just sent. */
  problem?: string;
  /**
   * Paid online: held while its checkout is open (until that moment, in words), or lapsed when
   * no payment came in time and the place was given back.
   */
  checkout?: { state: 'held'; until: string } | { state: 'lapsed' };
  /** Cancelled just now (a notice above the place). */
  cancelledNow?: boolean;
  /** The class: label and value of each line. */
  facts?: [string, string][];
  /** The form that cancels the place (a POST), or why it cannot be cancelled here any more. */
  cancel?: { token: string; policy: string; tooLate: boolean; email: string };
  /** The form that claims the place an offer holds (a POST); paid online: to Stripe's page. */
  claim?: { token: string; payOnline: boolean };
  /** The form that leaves the waitlist (a POST, after a confirming tap). */
  leave?: { token: string };
  /** What the page ends with. */
  next: 'waiver' | 'classes' | 'nothing';
}
