import { Temporal } from 'temporal-polyfill';
import { describe, expect, test } from 'vitest';
import { eventUid, hasEnded, priceLabel, toStudioEvent } from '../../src/lib/events';
import { excerpt, plainText } from '../../src/lib/plain-text';

const studio = {
  name: 'Still Point Pilates',
  timeZone: 'America/Los_Angeles',
  address: {
    street: '2140 SE Division St',
    locality: 'Portland',
    region: 'OR',
    postalCode: '97202',
    country: 'US',
  },
};
const fields = {
  title: 'Workshop',
  start: '2026-06-14 09:00',
  end: '2026-06-14 11:00',
  place: 'studio' as const,
  price: 40,
};
const instant = (text: string) => Temporal.Instant.from(text);

describe('an event', () => {
  test('is still to come while under way, and over from the minute it ends', () => {
    const event = toStudioEvent('workshop', fields, 'Text.', studio);
    expect(hasEnded(event, instant('2026-06-14T16:30:00Z'))).toBe(false);
    expect(hasEnded(event, instant('2026-06-14T17:59:59Z'))).toBe(false);
    expect(hasEnded(event, instant('2026-06-14T18:00:00Z'))).toBe(true);
  });

  test('at the studio takes its name and address; at an address, the studio’s country', () => {
    expect(toStudioEvent('a', fields, '', studio).place).toEqual({
      kind: 'studio',
      name: studio.name,
      address: studio.address,
    });
    const park = {
      name: 'Park',
      street: '1 Oak St',
      locality: 'Portland',
      region: 'OR',
      postalCode: '97214',
    };
    expect(toStudioEvent('b', { ...fields, place: park }, '', studio).place).toEqual({
      kind: 'address',
      name: 'Park',
      address: { ...park, country: 'US' },
    });
  });

  test('in its own zone is read there, not in the studio’s', () => {
    const event = toStudioEvent('c', { ...fields, timeZone: 'Europe/Berlin' }, '', studio);
    expect(event.start.toInstant().toString()).toBe('2026-06-14T07:00:00Z');
    expect(event.start.timeZoneId).toBe('Europe/Berlin');
  });

  test('priced 0 is free; prices read as whole dollars or with cents', () => {
    expect(toStudioEvent('d', { ...fields, price: 0 }, '', studio).price).toBe('free');
    expect(priceLabel('free')).toBe('Free');
    expect(priceLabel(65)).toBe('$65');
    expect(priceLabel(22.5)).toBe('$22.50');
    expect(priceLabel(1200)).toBe('$1,200');
  });

  test('without a summary, is summed up by the first sentences of its description that fit', () => {
    const text = `${'A first sentence that is long enough to matter here. '.repeat(4)}\n\nSecond paragraph.`;
    const event = toStudioEvent('e', fields, text, studio);
    expect(event.summary.length).toBeLessThanOrEqual(240);
    expect(event.summary).toMatch(/matter here\.$/);
    expect(event.summary).not.toContain('Second paragraph');
  });

  test('has a UID from its file name at the studio’s mail domain', () => {
    expect(eventUid({ id: 'spring-workshop' }, 'hello@stillpointpilates.studio')).toBe(
      'event-spring-workshop@stillpointpilates.studio',
    );
  });
});

describe('plain text from rendered Markdown', () => {
  test('keeps paragraphs, list items and link addresses, and drops markup', () => {
    const html =
      '<p>Bring <strong>water</strong> &amp; a mat.</p><ul><li>Footwork</li><li>Breath</li></ul><p>See <a href="https://example.com/x">the map</a>.</p>';
    expect(plainText(html)).toBe(
      'Bring water & a mat.\n\n * Footwork\n * Breath\n\nSee the map [https://example.com/x].',
    );
  });

  test('an excerpt of one overlong sentence is cut at a word, with an ellipsis', () => {
    expect(excerpt('one two three four five six', 14)).toBe('one two three…');
    expect(excerpt('Short.', 14)).toBe('Short.');
  });
});
