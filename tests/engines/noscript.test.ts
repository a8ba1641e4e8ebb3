import { describe, expect, it } from 'vitest';
import type { EnginePage } from './browsers.ts';
import { pdfImages } from './pdf-signature.ts';
import {
  PAGES,
  SCREENSHOTS,
  STUDIO_INBOX,
  WAIT,
  WIDTHS,
  fillWaiver,
  find,
  isShown,
  overflow,
  selectedEngines,
  useEngine,
  useSite,
  viewWholePage,
  waitUntilShown,
} from './site.ts';

const site = useSite({ smtp: true });

/** The labelled fields each form shows, so a visitor can read what to fill in. */
const FORM_FIELDS: Record<string, string[]> = {
  '/contact': ['Name', 'Email', 'Service Interest', 'Message'],
  '/waiver': [
    'First Name',
    'Last Name',
    'Email',
    'Phone',
    'Emergency Contact Name',
    'Emergency Contact Phone',
  ],
};

const mainText = (page: EnginePage) =>
  page.evaluate(() => (document.querySelector('main')?.innerText ?? '').trim().length);

for (const engineName of selectedEngines()) {
  describe(`${engineName}, without scripts`, () => {
    const browser = useEngine(engineName, { javaScript: false });

    for (const width of WIDTHS) {
      for (const { name, path, heading } of PAGES) {
        it(`${name} (${path}) renders and reads at ${width} px with scripts off`, async () => {
          const page = await browser.open(width);
          await page.goto(site.url(path));
          // Scripts really are off: the recorder the proxy puts in every page did not run.
          expect(await page.evaluate(() => '__enginesRecorder' in window)).toBe(false);

          await find(page, { role: 'heading', level: 1, name: heading ?? { regex: '\\S' } });
          expect(await mainText(page)).toBeGreaterThan(path === '/no-such-page' ? 40 : 200);
          await find(page, { role: 'navigation', name: 'Main' });
          if (width === 375) {
            expect(await overflow(page)).toBeLessThanOrEqual(0);
            await find(page, { role: 'button', name: 'Menu' });
          }
          for (const label of FORM_FIELDS[path] ?? []) await find(page, { label });
          if (path === '/waiver') {
            // No script, nothing to draw with: the pad gives way to signing with a typed name.
            await find(page, { label: 'Type your full name to sign' });
            expect(await isShown(page, { role: 'img', name: { regex: '^Signature pad' } })).toBe(
              false,
            );
          }
          if (path === '/no-such-page') {
            // The path is filled in by a script; without it the sentence still reads.
            await find(page, { text: 'There is nothing at this address' });
          }
          expect(await viewWholePage(page, { javaScript: false })).toEqual([]);
          await page.screenshot(
            `${SCREENSHOTS}/${engineName}-noscript/${width}/${name.toLowerCase()}.png`,
          );
        });
      }
    }

    // Both forms are plain HTML form posts too, answered with pages (303 to a page in the product's
    // words); the waiver is signed with a typed name, which the server draws.
    describe('the forms, posted as HTML', () => {
      for (const width of WIDTHS) {
        it(`a message posted from /contact at ${width} px is answered 303 with 'Message sent successfully!' and arrives`, async () => {
          const page = await browser.open(width);
          await page.goto(site.url('/contact'));
          const visitor = `${engineName} No-script Visitor ${width} ${Date.now()}`;
          await page.type(await find(page, { label: 'Name' }), visitor);
          await page.type(await find(page, { label: 'Email' }), 'noscript@example.test');
          await page.select(await find(page, { label: 'Service Interest' }), 'small-group');
          await page.type(await find(page, { label: 'Message' }), 'Sent with scripts off.');
          await page.click(await find(page, { role: 'button', name: 'Send Message' }));

          await waitUntilShown(page, { text: 'Message sent successfully!' });
          await find(page, {
            text: "Thank you for reaching out. I'll get back to you within 24 hours.",
          });
          expect(
            site.proxy.responses.some(
              (r) =>
                r.method === 'POST' && r.path.startsWith('/api/send-email') && r.status === 303,
            ),
          ).toBe(true);
          await expect
            .poll(() => site.smtp.mails.some((m) => m.subject === `New Inquiry from ${visitor}`), {
              ...WAIT,
              timeout: 30_000,
            })
            .toBe(true);
        });

        it(`a waiver signed with a typed name at ${width} px is answered 303 with 'Waiver submitted successfully!' and its PDF has the signature`, async () => {
          const page = await browser.open(width);
          await page.goto(site.url('/waiver'));
          const lastName = `Noscript${engineName}${width}x${Date.now()}`;
          const email = `noscript-${engineName}-${width}-${Date.now()}@example.test`;
          await fillWaiver(page, { lastName, email }, [
            ['Type your full name to sign', `Ingrid ${lastName}`],
          ]);
          await page.click(
            await find(page, {
              role: 'checkbox',
              name: { regex: 'I have read and agree to the liability waiver terms' },
            }),
          );
          await page.click(await find(page, { role: 'button', name: 'Submit Waiver' }));

          await waitUntilShown(page, { text: 'Waiver submitted successfully!' });
          expect(
            site.proxy.responses.some(
              (r) =>
                r.method === 'POST' && r.path.startsWith('/api/submit-waiver') && r.status === 303,
            ),
          ).toBe(true);
          const records = () =>
            site.smtp.mails.find((m) => m.subject?.startsWith(`Signed waiver: Ingrid ${lastName}`));
          const copy = () => site.smtp.mails.find((m) => m.envelope.to.includes(email));
          await expect.poll(() => !!records() && !!copy(), { ...WAIT, timeout: 30_000 }).toBe(true);
          expect(records()!.envelope.to).toEqual([STUDIO_INBOX]);
          const [signature] = await pdfImages(records()!.attachments[0]!.content);
          expect(signature!.dark).toBeGreaterThan(50);
          expect(await isShown(page, { text: 'Error submitting waiver' })).toBe(false);
        });
      }
    });
  });
}
