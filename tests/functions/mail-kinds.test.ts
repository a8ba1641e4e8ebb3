import { randomUUID } from 'node:crypto';
import { expect, test } from 'vitest';
import { BOOKING_MAILS, SESSION_MAILS } from '../../src/server/booking/appointment-mail';
import { CLASS_MAILS, WAITLIST_MAILS } from '../../src/server/classes/book';
import { MESSAGE_MAILS } from '../../src/server/contact/store';
import { SIGN_UP_MAILS } from '../../src/server/list/store';
import { WAIVER_MAILS } from '../../src/server/waiver/store';
import { MAIL_KINDS, isMailKind, kindsAbout } from '../../src/server/mail-kinds';
import { useFunctionEnv } from '../fixtures/function-env';

// The composers look their rows up in this file's own database.
useFunctionEnv();

// The kinds each form's store step may queue (its outbox's type is bound to its list).
const functions = {
  'send-email': MESSAGE_MAILS,
  'submit-waiver': WAIVER_MAILS,
  'book-consultation': BOOKING_MAILS,
  'book-session': SESSION_MAILS,
  'list-signup': SIGN_UP_MAILS,
  'book-class': CLASS_MAILS,
  'class-waitlist': WAITLIST_MAILS,
};

test.each(Object.entries(functions))(
  '%s queues only kinds of mail the outbox can compose',
  async (_, mails) => {
    expect(mails.length).toBeGreaterThan(0);
    for (const kind of mails) {
      expect(isMailKind(kind)).toBe(true);
      // The composer loads its module and looks its row up: a row that is not there is no mail.
      const ref =
        kind === 'contact'
          ? '0'
          : /^(booking|session|class)-/.test(kind)
            ? `${randomUUID()}:0`
            : randomUUID();
      await expect(MAIL_KINDS[kind].compose(ref)).resolves.toBeUndefined();
    }
  },
);

test('every kind names the record it is about and a label for the desk', () => {
  expect(kindsAbout('message')).toEqual(['contact']);
  expect(kindsAbout('waiver')).toEqual(['waiver-records', 'waiver-participant', 'waiver-re-sign']);
  expect(kindsAbout('booking')).toEqual([
    'booking-visitor',
    'booking-studio',
    'booking-cancel-visitor',
    'booking-cancel-studio',
    'booking-reminder',
    'session-visitor',
    'session-studio',
    'session-cancel-visitor',
    'session-cancel-studio',
    'session-reminder',
    'payment-refunded',
    'payment-mismatch',
    'refund-refused',
    'class-visitor',
    'class-reminder',
    'class-cancel-visitor',
    'class-studio',
    'class-calendar',
    'class-waitlist',
    'class-offer',
    'class-waitlist-closed',
  ]);
  for (const kind of Object.values(MAIL_KINDS)) expect(kind.label).toMatch(/^[A-Z]/);
});

test('an unknown kind has no composer', () => {
  expect(isMailKind('newsletter')).toBe(false);
  expect(isMailKind('toString')).toBe(false);
});
