import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import {
  CONTACT_FIELDS,
  SERVICE_OPTIONS,
  SERVICE_PLACEHOLDER,
  contactSchema,
  serviceLabel,
} from '../../src/shared/contact';
import { fieldErrors } from '../../src/shared/fields';

const valid = {
  name: 'Ada Lovelace',
  email: 'ada@example.test',
  service: 'consultation',
  message: 'I would like to try pilates.',
};

function errorsOf(input: unknown) {
  const result = contactSchema.safeParse(input);
  if (result.success) throw new Error('expected the input to be rejected');
  return fieldErrors(result.error);
}

describe('service options', () => {
  test('are the seven services, values and labels letter for letter', () => {
    expect(SERVICE_OPTIONS.map(({ value, label }) => [value, label])).toEqual([
      ['private-session', 'Private Session'],
      ['small-group', 'Small Group Class'],
      ['in-home', 'In-Home Session'],
      ['prenatal', 'Prenatal Pilates'],
      ['injury-recovery', 'Injury Recovery'],
      ['consultation', 'Consultation'],
      ['other', 'Other'],
    ]);
    expect(SERVICE_PLACEHOLDER).toBe('Select a service...');
  });

  test('map a value to its label and the empty choice to none', () => {
    expect(serviceLabel('in-home')).toBe('In-Home Session');
    expect(serviceLabel('')).toBeUndefined();
  });
});

describe('the contact schema', () => {
  test('accepts a complete message and trims the text fields', () => {
    expect(contactSchema.parse({ ...valid, name: '  Ada  ', email: ' ada@example.test ' })).toEqual(
      { ...valid, name: 'Ada' },
    );
  });

  test('accepts every listed service, the empty choice and no service at all', () => {
    for (const { value } of SERVICE_OPTIONS) {
      expect(contactSchema.parse({ ...valid, service: value }).service).toBe(value);
    }
    expect(contactSchema.parse({ ...valid, service: '' }).service).toBe('');
    const { service: _service, ...withoutService } = valid;
    expect(contactSchema.parse(withoutService).service).toBe('');
  });

  test('drops fields it does not know, such as a recipient or a subject', () => {
    const parsed = contactSchema.parse({ ...valid, to: 'x@example.test', subject: 'Hi', html: '' });
    expect(Object.keys(parsed).sort()).toEqual(['email', 'message', 'name', 'service']);
  });

  test('asks for each missing required field in words for people', () => {
    expect(errorsOf({})).toEqual({
      name: 'Please enter your name.',
      email: 'Please enter your e-mail address.',
      message: 'Please enter your message.',
    });
  });

  test('rejects blank text as missing', () => {
    expect(errorsOf({ ...valid, name: ' \t ', message: '\n\n' })).toEqual({
      name: 'Please enter your name.',
      message: 'Please enter your message.',
    });
  });

  test.each([
    'ada',
    'ada@',
    '@example.test',
    'ada@example',
    'a b@example.test',
    'ada@ex\r\nample.test',
  ])('rejects the e-mail address %j', (email) => {
    expect(errorsOf({ ...valid, email }).email).toMatch(/valid e-mail/);
  });

  test('rejects a service that is not listed', () => {
    expect(errorsOf({ ...valid, service: 'trapeze' }).service).toBe(
      'Please choose one of the listed services.',
    );
  });

  test('rejects text longer than the limits', () => {
    const errors = errorsOf({
      ...valid,
      name: 'n'.repeat(CONTACT_FIELDS.name.max + 1),
      message: 'm'.repeat(CONTACT_FIELDS.message.max + 1),
    });
    expect(errors.name).toBe('Please keep your name under 100 characters.');
    expect(errors.message).toBe('Please keep your message under 5,000 characters.');
    expect(
      contactSchema.safeParse({ ...valid, message: 'm'.repeat(CONTACT_FIELDS.message.max) })
        .success,
    ).toBe(true);
  });

  test('rejects values that are not text', () => {
    expect(Object.keys(errorsOf({ name: 1, email: true, service: 3, message: [] })).sort()).toEqual(
      ['email', 'message', 'name', 'service'],
    );
  });

  test('accepts any non-blank name and message within the limits, free of control characters', () => {
    // eslint-disable-next-line no-control-regex -- finding control characters is the point
    const control = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;
    const text = (max: number, lines: boolean) =>
      fc
        .string({ unit: 'grapheme', minLength: 1, maxLength: max })
        .filter(
          (s) =>
            s.trim().length > 0 &&
            s.trim().length <= max &&
            !control.test(s) &&
            (lines || !/[\n\r\u2028\u2029]/.test(s)),
        );
    fc.assert(
      fc.property(
        text(CONTACT_FIELDS.name.max, false),
        text(CONTACT_FIELDS.message.max, true),
        (name, message) => {
          expect(contactSchema.safeParse({ ...valid, name, message }).success).toBe(true);
        },
      ),
    );
  });

  test('keeps line breaks in the message but not in the name', () => {
    expect(contactSchema.parse({ ...valid, message: 'one\ntwo' }).message).toBe('one\ntwo');
    expect(errorsOf({ ...valid, name: 'Ada\r\nBcc: x@example.test' }).name).toBe(
      'Please write your name on one line.',
    );
  });
});
