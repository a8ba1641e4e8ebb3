/**
 * Every mail the site sends has one look (src/server/mail): an HTML and a plain-text part in the
 * same words, the studio's name and postal address at the end, links as buttons, visitors' words
 * escaped, and times on the studio's clock.
 */
import { describe, expect, test } from 'vitest';
import { signInMail } from '../../src/server/auth/links';
import { composeContactMail } from '../../src/server/contact/mail';
import { mailBody } from '../../src/server/mail/blocks';
import { signedAt } from '../../src/server/waiver/pdf';
import { composeReSignMail } from '../../src/server/waiver/re-sign';

const STUDIO = 'Still Point Pilates';
const ADDRESS = '2140 SE Division St, Portland, OR 97202';

const contact = (fields: Partial<Parameters<typeof composeContactMail>[0]> = {}) =>
  composeContactMail({
    name: 'Ada Lovelace',
    email: 'ada@example.test',
    service: 'private-session',
    message: 'Hello',
    ...fields,
  });

const mails = {
  contact: contact(),
  'sign-in': signInMail('maya@example.test', 'T'.repeat(43)),
  're-sign': composeReSignMail({
    firstName: 'Ada',
    email: 'ada@example.test',
    link: 'https://studio.example/waiver#re-sign=abc',
  }),
};

describe.each(Object.entries(mails))('the %s mail', (_, mail) => {
  test('has an HTML part and a plain-text part, each ending with the studio and its postal address', () => {
    expect(mail.html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(mail.html).toContain(`${STUDIO} · ${ADDRESS}`);
    expect(mail.text.trimEnd().endsWith(`${STUDIO}, ${ADDRESS}`)).toBe(true);
    expect(mail.text).not.toMatch(/<[a-z]/i);
  });

  test('says in its HTML every paragraph its text says', () => {
    const visible = mail.html
      .replace(/<[^>]+>/g, ' ')
      .replace(/&#x27;|&#39;/g, "'")
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, '&')
      .replace(/\s+/g, ' ');
    for (const paragraph of mail.text.split('\n\n')) {
      for (const line of paragraph.split('\n')) {
        if (line === '--' || line.startsWith('http') || line === '') continue;
        const words = line.replace(/\s+/g, ' ').replace(`${STUDIO}, ${ADDRESS}`, ADDRESS);
        expect(visible).toContain(words);
      }
    }
  });
});

test('a visitor’s words are escaped in the HTML part, and kept as typed in the text part', () => {
  const mail = contact({
    name: '<img src=x onerror=alert(1)>',
    message: 'Hi <script>alert(2)</script> & "bye"',
  });
  expect(mail.html).not.toContain('<img src=x');
  expect(mail.html).not.toContain('<script>');
  expect(mail.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  expect(mail.html).toContain('Hi &lt;script&gt;alert(2)&lt;/script&gt; &amp; &quot;bye&quot;');
  expect(mail.text).toContain('Hi <script>alert(2)</script> & "bye"');
});

test('a link is a button with its own words, and its address in the text part', () => {
  const { html, text } = mails['sign-in'];
  expect(html).toMatch(
    /<a href="http[^"]+\/records\/sign-in#token=T{43}"[^>]*>[\s\S]*Sign in to the records desk/,
  );
  expect(text).toMatch(/\/records\/sign-in#token=T{43}/);
});

test('Reply-To where a reply makes sense: the sender of a message; the studio for a participant; none for a sign-in link', () => {
  expect(mails.contact.replyTo).toBe('ada@example.test');
  expect(mails['re-sign'].replyTo).toBe('hello@stillpointpilates.studio');
  expect(mails['sign-in'].replyTo).toBeUndefined();
});

test('a mail with no small print still ends with the studio and its postal address', () => {
  const { html, text } = mailBody(['One line.']);
  expect(html).toContain(`${STUDIO} · ${ADDRESS}`);
  expect(text).toBe(`One line.\n\n--\n\n${STUDIO}, ${ADDRESS}\n\n`);
});

describe('a waiver’s time, on the studio’s clock (America/Los_Angeles)', () => {
  test.each([
    ['2026-03-08T09:59:00Z', 'Sunday, March 8, 2026, 1:59 AM PST'],
    ['2026-03-08T10:00:00Z', 'Sunday, March 8, 2026, 3:00 AM PDT'],
    ['2026-11-01T08:30:00Z', 'Sunday, November 1, 2026, 1:30 AM PDT'],
    ['2026-11-01T09:30:00Z', 'Sunday, November 1, 2026, 1:30 AM PST'],
  ])('%s reads %s', (utc, local) => {
    expect(signedAt(new Date(utc)).local).toBe(local);
  });

  test('its day is the studio’s day, not the UTC one', () => {
    const late = signedAt(new Date('2026-11-27T05:00:00Z'));
    expect(late.day).toBe('2026-11-26');
    expect(late.utc).toBe('2026-11-27 05:00:00 UTC');
  });
});
