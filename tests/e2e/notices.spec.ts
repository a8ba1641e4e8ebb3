/**
 * The forms' notices on a phone and on a computer: below the sticky header (never over it or
 * under it), in the same place for every form, opaque from their first frame; and the moment
 * after a success reads as one: the blank form says nothing of what is missing until someone
 * starts on it again.
 */
import { expect, test, type Page } from '@playwright/test';
import { mailbox } from './mailbox';
import { hydrate } from './islands';

// The forms send mail: a real server takes it.
mailbox();

interface Seen {
  /** The notice's opacity when it entered the page, before any transition could run. */
  firstOpacity: string;
  top: number;
  bottom: number;
  left: number;
  right: number;
  /** The header's bottom edge. */
  headerBottom: number;
}

/** Records the first notice to enter the page: its opacity then, and where it comes to rest. */
async function watchNotices(page: Page) {
  await page.evaluate(() => {
    const seen = (window as unknown as { firstNoticeOpacity?: string }).firstNoticeOpacity;
    if (seen !== undefined) return;
    new MutationObserver((records, observer) => {
      for (const record of records) {
        for (const node of record.addedNodes) {
          const toast =
            node instanceof Element
              ? node.matches('[data-sonner-toast]')
                ? node
                : node.querySelector('[data-sonner-toast]')
              : null;
          if (!toast) continue;
          (window as unknown as { firstNoticeOpacity?: string }).firstNoticeOpacity =
            getComputedStyle(toast).opacity;
          observer.disconnect();
          return;
        }
      }
    }).observe(document.body, { childList: true, subtree: true });
  });
}

async function notice(page: Page, title: string): Promise<Seen> {
  const toast = page.locator('[data-sonner-toast]').filter({ hasText: title });
  await expect(toast).toBeVisible();
  // At rest (the close button's own transition aside): where the visitor reads it.
  await expect(toast).toHaveCSS('opacity', '1');
  await page.waitForFunction(
    (element) => element?.getAnimations({ subtree: false }).length === 0,
    await toast.elementHandle(),
  );
  const box = (await toast.boundingBox())!;
  const headerBottom = await page
    .locator('body > header, header')
    .first()
    .evaluate((header) => header.getBoundingClientRect().bottom);
  const firstOpacity = await page.evaluate(
    () => (window as unknown as { firstNoticeOpacity?: string }).firstNoticeOpacity ?? '',
  );
  return {
    firstOpacity,
    top: box.y,
    bottom: box.y + box.height,
    left: box.x,
    right: box.x + box.width,
    headerBottom,
  };
}

async function sendContact(page: Page): Promise<Seen> {
  await page.goto('/contact');
  const form = page.locator('form#contact-form');
  const name = form.getByRole('textbox', { name: 'Name' });
  await hydrate(page, 'ContactForm', name);
  await watchNotices(page);
  await name.fill(`Notice Visitor ${Date.now()}`);
  await form.getByRole('textbox', { name: 'Email' }).fill('visitor@example.test');
  await form.getByRole('combobox', { name: 'Service Interest' }).selectOption('small-group');
  await form.getByRole('textbox', { name: 'Message' }).fill('Is there room on Tuesdays?');
  await page.waitForFunction(() => performance.now() > 3_500);
  await form.getByRole('button', { name: 'Send Message' }).click();
  return notice(page, 'Message sent successfully!');
}

async function signWaiver(page: Page): Promise<Seen> {
  await page.goto('/waiver');
  await hydrate(page, 'WaiverForm', page.getByLabel('First Name'));
  await watchNotices(page);
  await page.getByLabel('First Name').fill('Ingrid');
  await page.getByLabel('Last Name').fill('Okonkwo');
  await page.getByLabel('Email').fill(`ingrid.${Date.now()}@example.test`);
  await page.getByRole('textbox', { name: 'Phone', exact: true }).fill('503-555-0142');
  await page.getByLabel('Emergency Contact Name').fill('Tomas Okonkwo');
  await page.getByLabel('Emergency Contact Phone').fill('503-555-0199');
  await page.getByRole('checkbox', { name: /agree to the liability waiver/ }).check();
  await page.getByLabel('Or type your full name to sign').fill('Ingrid Okonkwo');
  await expect(page.getByText('Please provide your electronic signature above')).toBeHidden();
  await page.waitForFunction(() => performance.now() > 5_500);
  await page.getByRole('button', { name: 'Submit Waiver' }).click();
  return notice(page, 'Waiver submitted successfully!');
}

for (const width of [375, 1280]) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height: 800 } });

    test('every form shows its notice in one place, below the header, opaque from its first frame', async ({
      page,
    }) => {
      test.slow();
      const contact = await sendContact(page);
      const waiver = await signWaiver(page);
      for (const seen of [contact, waiver]) {
        expect(seen.firstOpacity).toBe('1');
        expect(seen.top).toBeGreaterThanOrEqual(seen.headerBottom);
        expect(seen.bottom).toBeLessThan(800);
      }
      // The same place: the same top and the same horizontal span.
      expect(Math.abs(contact.top - waiver.top)).toBeLessThanOrEqual(1);
      expect(Math.abs(contact.left - waiver.left)).toBeLessThanOrEqual(1);
      expect(Math.abs(contact.right - waiver.right)).toBeLessThanOrEqual(1);
    });
  });
}

test('after a waiver is sent the page says it is signed, until another is begun; the blank pad then shows its hint', async ({
  page,
}) => {
  test.slow();
  await page.setViewportSize({ width: 375, height: 800 });
  await signWaiver(page);
  const signed = page.locator('[data-waiver-signed]');
  await expect(signed).toContainText('Your waiver is signed');
  await page.screenshot({ path: 'test-results/waiver/signed-375.png' });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: 'test-results/waiver/signed-1280.png' });
  await page.setViewportSize({ width: 375, height: 800 });
  await signed.getByRole('button', { name: 'Sign another waiver' }).click();
  const signatureHint = page.getByText('Please provide your electronic signature above');
  const termsHint = page.getByText('Please agree to the waiver terms above to submit.');
  await expect(page.getByLabel('First Name')).toHaveValue('');
  // The pad is empty: its hint shows, as the specification has it.
  await expect(signatureHint).toBeVisible();
  await expect(termsHint).toBeHidden();
  // The next signer begins: the form says again what it needs.
  await page.getByLabel('First Name').fill('Maya');
  await expect(termsHint).toBeVisible();
});
