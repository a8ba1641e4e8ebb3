import { contactRecipient } from '../platform/mail';

/** An address as the desk compares it: trimmed, lower case. */
export const normalEmail = (value: string) => value.trim().toLowerCase();

/**
 * The addresses that may sign in to the records desk: `STAFF_EMAILS` (comma-separated, any
 * case), else the studio's own inbox (`CONTACT_TO`, else the e-mail in content/site.yaml).
 * Read on every request, so taking an address out of the setting shuts its sessions out too.
 */
export function staffEmails(): Set<string> {
  const listed = (process.env.STAFF_EMAILS ?? '').split(',').map(normalEmail).filter(Boolean);
  return new Set(listed.length > 0 ? listed : [normalEmail(contactRecipient())]);
}

export const isStaff = (email: string) => staffEmails().has(normalEmail(email));
