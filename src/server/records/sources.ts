import type { MailState } from '../../shared/desk-api';
import type { MailKind } from '../platform/mail-kinds';

/**
 * What each kind of mail is about, for the desk: which table its `ref` names and how to call it.
 * Typed against every MailKind, so a new kind of mail does not compile until the desk (its
 * delivery list, a participant's erasure) knows whose it is.
 */
export const MAIL_SOURCES = {
  contact: { record: 'message', label: 'Message to the studio' },
  'waiver-records': { record: 'waiver', label: "Signed waiver to the studio's records" },
  'waiver-participant': { record: 'waiver', label: "Participant's copy of their waiver" },
} as const satisfies Record<MailKind, { record: 'waiver' | 'message'; label: string }>;

export type RecordKind = 'waiver' | 'message';

/** The mail kinds composed from a waiver, or from a message. */
export function kindsOf(record: RecordKind): MailKind[] {
  return (Object.keys(MAIL_SOURCES) as MailKind[]).filter(
    (kind) => MAIL_SOURCES[kind].record === record,
  );
}

export function mailLabel(kind: string): string {
  return (MAIL_SOURCES as Record<string, { label: string }>)[kind]?.label ?? kind;
}

/** An outbox row's state from its two timestamps. */
export function mailState(sentAt: unknown, failedAt: unknown): MailState {
  if (sentAt) return 'sent';
  return failedAt ? 'failed' : 'owed';
}
