import { describe, expect, test } from 'vitest';
import { fieldErrors } from '../../src/shared/fields';
import { WAIVER_FIELD_NAMES, waiverSchema } from '../../src/shared/waiver';
import { waiverBlocks } from '../../src/shared/waiver-blocks';
import { signaturePng } from '../fixtures/signatures';

const valid = {
  firstName: 'Ingrid',
  lastName: 'Okonkwo',
  email: 'ingrid@example.test',
  phone: '503-555-0142',
  emergencyName: 'Tomas Okonkwo',
  emergencyPhone: '(503) 555 0199',
  agreedToTerms: true,
  signature: signaturePng(),
};

const problems = (input: unknown) => {
  const result = waiverSchema.safeParse(input);
  return result.success ? {} : fieldErrors(result.error);
};

describe('waiver schema', () => {
  test('accepts a complete waiver and fills in the optional fields', () => {
    expect(waiverSchema.parse(valid)).toMatchObject({
      medicalConditions: '',
      medications: '',
      agreedToPhotos: false,
    });
  });

  test('trims the text fields', () => {
    expect(waiverSchema.parse({ ...valid, firstName: '  Ingrid ' }).firstName).toBe('Ingrid');
  });

  test('rejects an empty form, naming every required field', () => {
    const empty = {
      ...Object.fromEntries(WAIVER_FIELD_NAMES.map((name) => [name, ''])),
      agreedToTerms: false,
      agreedToPhotos: false,
      signature: '',
    };
    expect(Object.keys(problems(empty)).sort()).toEqual(
      [
        'agreedToTerms',
        'email',
        'emergencyName',
        'emergencyPhone',
        'firstName',
        'lastName',
        'phone',
        'signature',
      ].sort(),
    );
  });

  test('rejects terms that were not agreed to', () => {
    expect(problems({ ...valid, agreedToTerms: false }).agreedToTerms).toBe(
      'Please read and agree to the liability waiver terms.',
    );
  });

  test('rejects an empty signature', () => {
    expect(problems({ ...valid, signature: '' }).signature).toBe(
      'Please provide your electronic signature.',
    );
  });

  test('rejects a signature that is not a PNG data URL', () => {
    expect(problems({ ...valid, signature: 'data:image/jpeg;base64,/9j/4AAQ' }).signature).toMatch(
      /PNG/,
    );
    expect(problems({ ...valid, signature: 'https://example.test/sig.png' }).signature).toMatch(
      /PNG/,
    );
  });

  test('rejects a signature whose data is not base64', () => {
    expect(problems({ ...valid, signature: 'data:image/png;base64,<script>' }).signature).toMatch(
      /damaged/,
    );
  });

  test('rejects a signature over the size limit', () => {
    const huge = `data:image/png;base64,${'A'.repeat(800_000)}`;
    expect(problems({ ...valid, signature: huge }).signature).toMatch(/too large/);
  });

  test('rejects an e-mail address without a domain', () => {
    expect(problems({ ...valid, email: 'ingrid@' }).email).toMatch(/valid e-mail/);
  });

  test('rejects a phone number with too few digits', () => {
    expect(problems({ ...valid, phone: '555' }).phone).toMatch(/at least 7 digits/);
    expect(problems({ ...valid, emergencyPhone: 'call my mum' }).emergencyPhone).toMatch(/digits/);
  });

  test('rejects text longer than the limits', () => {
    expect(problems({ ...valid, lastName: 'x'.repeat(101) }).lastName).toBe(
      'Please keep your last name under 100 characters.',
    );
    expect(problems({ ...valid, medications: 'x'.repeat(2001) }).medications).toMatch(/2,000/);
  });
});

describe('waiver text', () => {
  test('splits Markdown into headings and paragraphs, joining wrapped lines', () => {
    expect(waiverBlocks('Intro line\nwraps here.\n\n## 1. Risk\n\nI **accept** the risk.')).toEqual(
      [
        { kind: 'paragraph', text: 'Intro line wraps here.' },
        { kind: 'heading', text: '1. Risk' },
        { kind: 'paragraph', text: 'I accept the risk.' },
      ],
    );
  });
});
