import { describe, expect, test } from 'vitest';
import { CONTACT_FIELDS, contactSchema } from '../../src/shared/contact';
import { describeProblems, fieldErrors, fieldSchema } from '../../src/shared/fields';
import { WAIVER_FIELDS, waiverSchema } from '../../src/shared/waiver';
import { signaturePng } from '../fixtures/signatures';

const contact = {
  name: 'Ada Lovelace',
  email: 'ada@example.test',
  service: '',
  message: 'Hello',
};
const waiver = {
  firstName: 'Ingrid',
  lastName: 'Okonkwo',
  email: 'ingrid@example.test',
  phone: '503-555-0142',
  emergencyName: 'Tomas Okonkwo',
  emergencyPhone: '503-555-0199',
  medicalConditions: 'None',
  medications: 'None',
  agreedToTerms: true,
  signature: signaturePng(),
};

const errorsOf = (schema: typeof contactSchema | typeof waiverSchema, input: unknown) => {
  const result = schema.safeParse(input);
  return result.success ? {} : fieldErrors(result.error);
};

describe('every text field of both forms', () => {
  const fields = [
    ...Object.keys(CONTACT_FIELDS).map((name) => ['contact', name] as const),
    ...Object.keys(WAIVER_FIELDS).map((name) => ['waiver', name] as const),
  ];

  test.each(fields)('%s %s refuses a NUL character, naming the field', (form, name) => {
    const [schema, valid] = form === 'contact' ? [contactSchema, contact] : [waiverSchema, waiver];
    const base = String((valid as Record<string, unknown>)[name]);
    const errors = errorsOf(schema, {
      ...valid,
      [name]: `${base.slice(0, 3)}\u0000${base.slice(3)}`,
    });
    expect(Object.keys(errors)).toEqual([name]);
    expect(errors[name]).toMatch(/control characters|valid e-mail|phone number/);
  });

  test.each(fields)('%s %s refuses other control characters but a tab', (form, name) => {
    const [schema, valid] = form === 'contact' ? [contactSchema, contact] : [waiverSchema, waiver];
    const base = String((valid as Record<string, unknown>)[name]);
    for (const control of ['\u0007', '\u001b', '\u007f', '\u0085']) {
      expect(Object.keys(errorsOf(schema, { ...valid, [name]: `${base}${control}x` }))).toEqual([
        name,
      ]);
    }
  });
});

describe('fieldSchema', () => {
  const name = fieldSchema({
    label: 'Name',
    kind: 'text',
    required: true,
    max: 5,
    about: 'your name',
  });
  const note = fieldSchema({
    label: 'Note',
    kind: 'text',
    required: false,
    max: 5,
    about: 'the note',
    multiline: true,
  });

  test('trims, requires and caps a required field, in words for people', () => {
    expect(name.parse('  Ada ')).toBe('Ada');
    expect(name.safeParse('   ').error?.issues[0]?.message).toBe('Please enter your name.');
    expect(name.safeParse(undefined).error?.issues[0]?.message).toBe('Please enter your name.');
    expect(name.safeParse('Adaline').error?.issues[0]?.message).toBe(
      'Please keep your name under 5 characters.',
    );
  });

  test('an optional field may be left out and keeps its line breaks', () => {
    expect(note.parse(undefined)).toBe('');
    expect(note.parse('a\nb')).toBe('a\nb');
    expect(name.safeParse('A\nB').error?.issues[0]?.message).toBe(
      'Please write your name on one line.',
    );
  });
});

describe('field errors', () => {
  test('keep the first problem of each field and describe each problem once', () => {
    const result = contactSchema.safeParse({ name: '', email: 'x', message: '' });
    const errors = fieldErrors(result.error!);
    expect(errors).toEqual({
      name: 'Please enter your name.',
      email: 'Please enter a valid e-mail address, like name@example.com.',
      message: 'Please enter your message.',
    });
    expect(describeProblems(errors)).toBe(
      'Please enter your name. Please enter a valid e-mail address, like name@example.com. Please enter your message.',
    );
  });
});
