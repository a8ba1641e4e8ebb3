/**
 * What the page that refuses a post from a page rendered on demand shows (a link's page whose
 * form was refused, or that could not be opened): server/request/pages.ts makes it,
 * components/RefusalPage.astro draws it.
 */
export interface RefusalPage {
  title: string;
  text: string;
  /** The fields that need fixing: each one's label and what to fix. */
  fields: { label: string; message: string }[];
  /** The product's own fallback line (how else to reach the studio), its address a mail link. */
  fallback: string;
  email: string;
  /** The form's page, for a fresh start. */
  formPage: { href: string; label: string };
}
