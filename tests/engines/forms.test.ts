import { describe, expect, it } from 'vitest';
import type { EnginePage } from './browsers.ts';
import { pdfImages } from './pdf-signature.ts';
import {
  SCRAWL,
  STUDIO_INBOX,
  WAIT,
  WIDTHS,
  consoleErrors,
  fillWaiver,
  find,
  inkPixels,
  isShown,
  pageOpenFor,
  selectedEngines,
  useEngine,
  useSite,
  waitForIsland,
  waitUntilGone,
  waitUntilShown,
} from './site.ts';

const site = useSite({ smtp: true });

/** The first message or waiver of a fresh server also starts its database and PDF fonts. */
const FIRST_ANSWER = 45_000;

const isEnabled = (page: EnginePage, element: unknown) =>
  page.evaluate((el: HTMLButtonElement) => !el.disabled, element as never);

for (const engineName of selectedEngines()) {
  describe(`${engineName}, with scripts, the forms`, () => {
    const browser = useEngine(engineName, { javaScript: true });

    for (const width of WIDTHS) {
      it(`a message sent from /contact at ${width} px arrives in the studio inbox as 'New Inquiry from <name>'`, async () => {
        const page = await browser.open(width);
        await page.goto(site.url('/contact'));
        const name = await find(page, { label: 'Name' });
        await page.evaluate((el: Element) => el.scrollIntoView({ block: 'center' }), name as never);
        const send = await find(page, { role: 'button', name: 'Send Message' });
        // The button is enabled once the island has hydrated.
        await expect.poll(() => isEnabled(page, send), WAIT).toBe(true);

        const visitor = `${engineName} Visitor ${width} ${Date.now()}`;
        await page.type(name, visitor);
        await page.type(await find(page, { label: 'Email' }), 'visitor@example.test');
        await page.select(await find(page, { label: 'Service Interest' }), 'small-group');
        await page.type(
          await find(page, { label: 'Message' }),
          `Hello from ${engineName}! Do you have room in a small group class?`,
        );
        // The time trap takes a message sent within 3 s of the page opening for a bot's.
        await pageOpenFor(page, 3_500);
        await page.click(send);

        await waitUntilShown(page, { text: 'Message sent successfully!' }, FIRST_ANSWER);
        await expect
          .poll(() => site.smtp.mails.some((m) => m.subject === `New Inquiry from ${visitor}`), {
            ...WAIT,
            timeout: 30_000,
          })
          .toBe(true);
        const mail = site.smtp.mails.find((m) => m.subject === `New Inquiry from ${visitor}`)!;
        expect(mail.envelope.to).toEqual([STUDIO_INBOX]);
        expect(mail.replyTo?.text).toBe('visitor@example.test');
        expect(mail.html).toContain('Small Group Class');
        expect(mail.html).toContain(`Hello from ${engineName}!`);

        const { recorded, native } = await consoleErrors(page, { javaScript: true });
        expect([...recorded, ...native]).toEqual([]);
      });

      it(`a waiver signed by drawing on the pad at ${width} px is sent, and its PDF holds the drawn signature`, async () => {
        const page = await browser.open(width);
        await page.goto(site.url('/waiver'));
        const pad = await find(page, { role: 'img', name: { regex: '^Signature pad' } });
        const lastName = `${engineName[0]!.toUpperCase()}${engineName.slice(1)}${width}x${Date.now()}`;
        const email = `${engineName}-${width}-${Date.now()}@example.test`;
        // The form hydrates on its first touch: the typing.
        await fillWaiver(page, { lastName, email });
        await page.evaluate((el: Element) => el.scrollIntoView({ block: 'center' }), pad as never);
        await waitForIsland(page, pad);

        const submit = await find(page, { role: 'button', name: 'Submit Waiver' });
        expect(await isEnabled(page, submit)).toBe(false);
        await page.click(
          await find(page, {
            role: 'checkbox',
            name: { regex: 'I have read and agree to the liability waiver terms' },
          }),
        );
        await expect.poll(() => isEnabled(page, submit), WAIT).toBe(true);

        const hint = { text: 'Please provide your electronic signature above' };
        expect(await isShown(page, hint)).toBe(true);
        expect(await inkPixels(page, pad)).toBe(0);
        await page.draw(pad, SCRAWL);
        await waitUntilGone(page, hint);
        expect(await inkPixels(page, pad)).toBeGreaterThan(50);

        // The time trap takes a waiver sent within 5 s of the page opening for a bot's.
        await pageOpenFor(page, 5_500);
        await page.click(submit);
        await waitUntilShown(page, { text: 'Waiver submitted successfully!' }, FIRST_ANSWER);

        const records = () =>
          site.smtp.mails.find((m) => m.subject?.startsWith(`Signed waiver: Ingrid ${lastName}`));
        const copy = () => site.smtp.mails.find((m) => m.envelope.to.includes(email));
        await expect.poll(() => !!records() && !!copy(), { ...WAIT, timeout: 30_000 }).toBe(true);
        expect(records()!.envelope.to).toEqual([STUDIO_INBOX]);
        for (const mail of [records()!, copy()!]) {
          expect(mail.attachments[0]?.contentType).toBe('application/pdf');
        }
        const [signature, ...others] = await pdfImages(records()!.attachments[0]!.content);
        expect(others).toEqual([]);
        // Ink, but not a filled box: a drawn line covers a small part of the image.
        expect(signature!.dark).toBeGreaterThan(50);
        expect(signature!.dark).toBeLessThan(signature!.width * signature!.height * 0.3);

        const { recorded, native } = await consoleErrors(page, { javaScript: true });
        expect([...recorded, ...native]).toEqual([]);
      });
    }
  });
}
