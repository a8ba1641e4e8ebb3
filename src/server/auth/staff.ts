import { normalEmail } from '../../shared/email';
import { contactRecipient } from '../platform/mail';
import { readSetting } from '../platform/settings';

/**
 * The addresses that may sign in to the records desk: `STAFF_EMAILS` (comma-separated, any
 * case), else the studio's own inbox (`CONTACT_TO`, else the e-mail in content/site.yaml).
 * Read on every request, so taking an address out of the setting shuts its sessions out too.
 */
export function staffEmails(): Set<string> {
  const listed = readSetting('STAFF_EMAILS') ?? [contactRecipient()];
  return new Set(listed.map(normalEmail));
}

export const isStaff = (email: string) => staffEmails().has(normalEmail(email));
