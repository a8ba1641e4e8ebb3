import { randomUUID } from 'node:crypto';
import { expect, test } from 'vitest';
import bookClass from '../../functions/book-class';
import bookConsultation from '../../functions/book-consultation';
import classWaitlist from '../../functions/class-waitlist';
import sendEmail from '../../functions/send-email';
import submitWaiver from '../../functions/submit-waiver';
import { MAIL_KINDS, isMailKind, kindsAbout } from '../../src/server/mail-kinds';
import { useFunctionEnv } from '../fixtures/function-env';

// The composers look their rows up in this file's own database.
useFunctionEnv();

const functions = {
  'send-email': sendEmail,
  'submit-waiver': submitWaiver,
  'book-consultation': bookConsultation,
  'book-class': bookClass,
  'class-waitlist': classWaitlist,
};

test.each(Object.entries(functions))(
  '%s queues only kinds of mail the outbox can compose',
  async (_, handler) => {
    expect(handler.mails.length).toBeGreaterThan(0);
    for (const kind of handler.mails) {
      expect(isMailKind(kind)).toBe(true);
      // The composer loads its module and looks its row up: a row that is not there is no mail.
      const ref =
        kind === 'contact'
          ? '0'
          : /^(booking|class)-/.test(kind)
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
