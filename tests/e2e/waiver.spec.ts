import { mkdir, writeFile } from 'node:fs/promises';
import { expect, test, type Page } from '@playwright/test';
import type { ReceivedMail } from '../fixtures/smtp';
import { signaturePng } from '../fixtures/signatures';
import { mailbox } from './mailbox';
import { mailSettled } from './desk';
import { holdScript, hydrate, island } from './islands';

const STUDIO_INBOX = 'studio-inbox@example.test';
/** Who may sign in to the desk (playwright.config.ts STAFF_EMAILS). */
const STAFF = 'maya@example.test';

const smtp = mailbox();

test.beforeEach(() => {
  smtp.mails.length = 0;
});

const pad = (page: Page) => page.getByRole('img', { name: /signature pad/i });
const hint = (page: Page) => page.getByText('Please provide your electronic signature above');
const submitButton = (page: Page) => page.getByRole('button', { name: /Submit Waiver|Processing/ });
const terms = (page: Page) => page.getByRole('checkbox', { name: /agree to the liability waiver/ });
const photos = (page: Page) => page.getByRole('checkbox', { name: /promotional/ });

async function openWaiver(page: Page) {
  await page.goto('/waiver');
  await hydrate(page, 'WaiverForm', page.getByLabel('First Name'));
  await pad(page).scrollIntoViewIfNeeded();
}

async function fillFields(page: Page, email = 'ingrid@example.test') {
  await page.getByLabel('First Name').fill('Ingrid');
  await page.getByLabel('Last Name').fill('Okonkwo');
  await page.getByLabel('Email').fill(email);
  await page.getByRole('textbox', { name: 'Phone', exact: true }).fill('503-555-0142');
  await page.getByLabel('Emergency Contact Name').fill('Tomas Okonkwo');
  await page.getByLabel('Emergency Contact Phone').fill('503-555-0199');
  await page.getByLabel('Medical Conditions or Injuries').fill('Old knee injury');
  await page.getByLabel('Current Medications').fill('None');
}

/** People take a while over a waiver; the time trap takes anything under 5 s for a bot. */
async function pastTimeTrap(page: Page) {
  await page.waitForFunction(() => performance.now() > 5_500);
}

async function drawWithMouse(page: Page) {
  await pad(page).scrollIntoViewIfNeeded();
  const box = (await pad(page).boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.15, box.y + box.height * 0.6);
  await page.mouse.down();
  for (let i = 1; i <= 20; i++) {
    await page.mouse.move(
      box.x + box.width * (0.15 + 0.035 * i),
      box.y + box.height * (0.6 - 0.25 * Math.sin(i / 2)),
      { steps: 2 },
    );
  }
  await page.mouse.up();
}

/** Dark pixels on the canvas: 0 for a blank (white) pad. */
function inkPixels(page: Page) {
  return pad(page).evaluate((canvas: HTMLCanvasElement) => {
    const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
    let dark = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i]! < 128 && data[i + 3]! > 128) dark++;
    return dark;
  });
}

function toast(page: Page, title: string) {
  return page.locator('[data-sonner-toast]').filter({ hasText: title });
}

test.describe('the waiver form on a computer', () => {
  test('draws a signature with the mouse, clears it and draws again', async ({ page }) => {
    await openWaiver(page);
    const box = (await pad(page).boundingBox())!;
    expect(box.width).toBe(400);
    expect(box.height).toBe(200);
    await expect(hint(page)).toBeVisible();
    expect(await inkPixels(page)).toBe(0);

    await drawWithMouse(page);
    await expect(hint(page)).toBeHidden();
    expect(await inkPixels(page)).toBeGreaterThan(50);

    await page.getByRole('button', { name: 'Clear Signature' }).click();
    await expect(hint(page)).toBeVisible();
    expect(await inkPixels(page)).toBe(0);

    await drawWithMouse(page);
    await expect(hint(page)).toBeHidden();
    expect(await inkPixels(page)).toBeGreaterThan(50);
  });

  test('signs by typing a name instead of drawing', async ({ page }) => {
    await openWaiver(page);
    await page.getByLabel('Type your full name to sign').fill('Ingrid Okonkwo');
    await expect(hint(page)).toBeHidden();
    expect(await inkPixels(page)).toBeGreaterThan(50);

    await page.getByRole('button', { name: 'Clear Signature' }).click();
    await expect(hint(page)).toBeVisible();
    await expect(page.getByLabel('Type your full name to sign')).toHaveValue('');
  });

  test('asks to agree to the terms, then to sign, before sending anything', async ({ page }) => {
    let calls = 0;
    await page.route('**/api/submit-waiver', (route) => {
      calls++;
      return route.continue();
    });
    await openWaiver(page);
    await fillFields(page);
    await expect(submitButton(page)).toBeDisabled();

    await page.getByLabel('First Name').press('Enter');
    await expect(toast(page, 'Agreement Required')).toContainText(
      'Please read and agree to the liability waiver terms.',
    );

    await terms(page).check();
    await expect(submitButton(page)).toBeEnabled();
    await submitButton(page).click();
    await expect(toast(page, 'Signature Required')).toContainText(
      'Please provide your electronic signature.',
    );
    expect(calls).toBe(0);
  });

  test('shows the problem next to a field that needs fixing', async ({ page }) => {
    await openWaiver(page);
    await fillFields(page);
    await page.getByLabel('Email').fill('ingrid@');
    await terms(page).check();
    await drawWithMouse(page);
    await submitButton(page).click();
    await expect(page.getByLabel('Email')).toHaveAttribute('aria-invalid', 'true');
    await expect(
      page.locator('form').getByText('Please enter a valid e-mail address'),
    ).toBeVisible();
    await expect(page.getByLabel('Email')).toBeFocused();
  });

  test('reads Processing Waiver... while sending, then resets everything and mails the PDFs', async ({
    page,
  }) => {
    test.slow();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/submit-waiver', async (route) => {
      await held;
      await route.continue();
    });
    await openWaiver(page);
    await fillFields(page);
    await terms(page).check();
    await photos(page).check();
    await drawWithMouse(page);
    await pastTimeTrap(page);

    const request = page.waitForRequest('**/api/submit-waiver');
    await submitButton(page).click();
    const body = (await request).postDataJSON();
    expect(body.waiver).toMatchObject({
      firstName: 'Ingrid',
      agreedToTerms: true,
      agreedToPhotos: true,
      signature: expect.stringMatching(/^data:image\/png;base64,/),
    });
    expect(body).toMatchObject({ website: '', fillTimeMs: expect.any(Number) });
    expect(body.fillTimeMs).toBeGreaterThan(5_000);
    await expect(submitButton(page)).toHaveText('Processing Waiver...');
    await expect(submitButton(page)).toBeDisabled();

    release();
    // The first waiver of a fresh server also starts the database and loads the PDF fonts.
    await expect(toast(page, 'Waiver submitted successfully!')).toContainText(
      'Your liability waiver has been processed and saved. A copy has been sent to our records.',
      { timeout: 45_000 },
    );
    // The notice goes after a few seconds: the page keeps saying the waiver is signed, and the
    // form stays out of the way until they choose to sign another (nobody signs twice).
    const signed = page.locator('[data-waiver-signed]');
    await expect(signed.getByRole('heading', { name: 'Your waiver is signed' })).toBeFocused();
    await expect(signed).toContainText('Thank you, Ingrid.');
    await expect(signed).toContainText('a copy is e-mailed to ingrid@example.test');
    await expect(submitButton(page)).toBeHidden();
    await expect(toast(page, 'Waiver submitted successfully!')).toBeHidden({ timeout: 20_000 });
    await expect(signed).toBeVisible();
    await signed.getByRole('button', { name: 'Sign another waiver' }).click();
    await expect(signed).toHaveCount(0);
    await expect(page.getByLabel('First Name')).toBeFocused();
    await expect(submitButton(page)).toHaveText('Submit Waiver');
    for (const label of ['First Name', 'Last Name', 'Email', 'Emergency Contact Name']) {
      await expect(page.getByLabel(label)).toHaveValue('');
    }
    await expect(page.getByLabel('Medical Conditions or Injuries')).toHaveValue('');
    await expect(terms(page)).not.toBeChecked();
    await expect(photos(page)).not.toBeChecked();
    // The pad is empty, so its red hint shows, as the specification has it.
    expect(await inkPixels(page)).toBe(0);
    await expect(hint(page)).toBeVisible();

    await smtp.waitForMails(2);
    const recipients = smtp.mails.flatMap((mail) => mail.envelope.to).sort();
    expect(recipients).toEqual(['ingrid@example.test', STUDIO_INBOX]);
    for (const mail of smtp.mails) {
      expect(mail.attachments[0]?.contentType).toBe('application/pdf');
    }

    // The participant's copy as a mail client shows it, at a phone's width and a laptop's: the
    // first name, and nothing else they typed (test-results/mail/, with its PDF).
    const copy = smtp.mails.find((mail) => mail.envelope.to.includes('ingrid@example.test'))!;
    await mkdir('test-results/mail', { recursive: true });
    await writeFile('test-results/mail/participant-copy.pdf', copy.attachments[0]!.content);
    await page.setContent(String(copy.html));
    await expect(page.getByText('Hello Ingrid,')).toBeVisible();
    await expect(page.locator('body')).not.toContainText(/Okonkwo|503-555|knee/);
    for (const width of [375, 1280]) {
      await page.setViewportSize({ width, height: 700 });
      await page.screenshot({ path: `test-results/mail/participant-copy-${width}.png` });
    }
  });

  test('keeps everything entered when the server refuses the waiver', async ({ page }) => {
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.route('**/api/submit-waiver', (route) =>
      route.fulfill({
        status: 503,
        json: { success: false, error: 'We could not save your waiver right now.' },
      }),
    );
    await openWaiver(page);
    await fillFields(page);
    await terms(page).check();
    await drawWithMouse(page);
    await submitButton(page).click();

    await expect(toast(page, 'Error submitting waiver')).toContainText(
      'We could not save your waiver right now.',
    );
    await expect(page.getByLabel('First Name')).toHaveValue('Ingrid');
    await expect(page.getByLabel('Medical Conditions or Injuries')).toHaveValue('Old knee injury');
    await expect(terms(page)).toBeChecked();
    await expect(hint(page)).toBeHidden();
    expect(await inkPixels(page)).toBeGreaterThan(50);
    await expect(submitButton(page)).toBeEnabled();
    expect(errors.some((text) => text.includes('Error submitting waiver'))).toBe(true);
    expect(errors.join('\n')).not.toContain('knee');
  });

  test('sends one submission id across retries of the same waiver, so a retry files nothing twice', async ({
    page,
  }) => {
    const ids: string[] = [];
    let failing = true;
    await page.route('**/api/submit-waiver', (route) => {
      const { waiver } = route.request().postDataJSON() as { waiver: { submissionId: string } };
      ids.push(waiver.submissionId);
      return failing
        ? route.fulfill({ status: 503, json: { success: false, error: 'Try again shortly.' } })
        : route.fulfill({ status: 200, json: { success: true, id: waiver.submissionId } });
    });
    await openWaiver(page);
    await fillFields(page);
    await terms(page).check();
    await drawWithMouse(page);
    await submitButton(page).click();
    await expect(toast(page, 'Error submitting waiver')).toContainText('Try again shortly.');
    failing = false;
    await submitButton(page).click();
    await expect(toast(page, 'Waiver submitted successfully!')).toBeVisible();
    expect(ids).toHaveLength(2);
    expect(ids[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(ids[1]).toBe(ids[0]);
  });

  test('offers a general message when the connection fails', async ({ page }) => {
    await page.route('**/api/submit-waiver', (route) => route.abort('connectionfailed'));
    await openWaiver(page);
    await fillFields(page);
    await terms(page).check();
    await drawWithMouse(page);
    await submitButton(page).click();
    await expect(toast(page, 'Error submitting waiver')).toContainText(
      'Please try again or contact us directly.',
    );
    await expect(page.getByLabel('Last Name')).toHaveValue('Okonkwo');
  });

  test("an answer without words gets the fallback, and logs the product's default text", async ({
    page,
  }) => {
    await page.route('**/api/submit-waiver', (route) =>
      route.fulfill({ status: 500, json: { success: false } }),
    );
    const logged: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') logged.push(message.text());
    });
    await openWaiver(page);
    await fillFields(page);
    await terms(page).check();
    await drawWithMouse(page);
    await submitButton(page).click();
    await expect(toast(page, 'Error submitting waiver')).toContainText(
      'Please try again or contact us directly.',
    );
    expect(logged).toContain('Error submitting waiver: Failed to submit waiver');
  });

  test.describe('when the server refuses the waiver for a reason of its own', () => {
    for (const [status, headers, serverWords, words] of [
      [
        429,
        { 'retry-after': '120' },
        'Too many waivers from your connection. Please try again in 2 minutes.',
        'Too many waivers have been sent from your connection. Please try again in 2 minutes.',
      ],
      [
        413,
        {},
        'The waiver is too large. Please clear the signature and sign again.',
        'The waiver is too large to send. Please clear the signature, sign again and resubmit.',
      ],
      [
        403,
        {},
        'This form only accepts submissions from the studio website.',
        'The form could not be sent from this page. Please reload the page and try again.',
      ],
    ] as const) {
      test(`${status}: shows the server's words and keeps everything entered`, async ({ page }) => {
        await page.route('**/api/submit-waiver', (route) =>
          route.fulfill({ status, headers, json: { success: false, error: serverWords } }),
        );
        await openWaiver(page);
        await fillFields(page);
        await terms(page).check();
        await drawWithMouse(page);
        await submitButton(page).click();
        await expect(toast(page, 'Error submitting waiver')).toContainText(serverWords);
        await expect(page.getByLabel('First Name')).toHaveValue('Ingrid');
        await expect(terms(page)).toBeChecked();
        expect(await inkPixels(page)).toBeGreaterThan(50);
        await expect(submitButton(page)).toBeEnabled();
      });

      test(`${status} without a JSON answer (from a proxy): still says what happened`, async ({
        page,
      }) => {
        await page.route('**/api/submit-waiver', (route) =>
          route.fulfill({ status, headers, contentType: 'text/html', body: '<h1>Refused</h1>' }),
        );
        await openWaiver(page);
        await fillFields(page);
        await terms(page).check();
        await drawWithMouse(page);
        await submitButton(page).click();
        await expect(toast(page, 'Error submitting waiver')).toContainText(words);
        await expect(page.getByLabel('Last Name')).toHaveValue('Okonkwo');
      });
    }
  });

  test.describe('the honeypot', () => {
    test('is hidden from people, screen readers, Tab and autofill, and sent empty', async ({
      page,
    }) => {
      let sent: Record<string, unknown> = {};
      await page.route('**/api/submit-waiver', (route) => {
        sent = route.request().postDataJSON();
        return route.fulfill({ status: 200, json: { success: true, id: 'test' } });
      });
      await openWaiver(page);
      const form = page.locator('#waiver-form form');
      const trap = form.locator('input[name="website"]');
      await expect(trap).toHaveAttribute('tabindex', '-1');
      await expect(trap).toHaveAttribute('autocomplete', 'off');
      const hidden = trap.locator('xpath=ancestor::*[@aria-hidden="true"]');
      await expect(hidden).toHaveCount(1);
      const box = await hidden.boundingBox();
      expect((box?.width ?? 0) * (box?.height ?? 0)).toBeLessThanOrEqual(1);
      await expect(hidden).toHaveCSS('overflow', 'hidden');
      await expect(form.getByRole('textbox', { name: /leave this field/i })).toHaveCount(0);

      await fillFields(page);
      await terms(page).check();
      await drawWithMouse(page);
      await submitButton(page).click();
      await expect(toast(page, 'Waiver submitted successfully!')).toBeVisible();
      expect(sent.website).toBe('');
      expect(sent.fillTimeMs).toBeGreaterThan(0);
    });

    test('a bot that fills it in is told the waiver was saved, but no mail goes out', async ({
      page,
      browser,
    }) => {
      // The desk is signed in to as well, to see the outbox settle.
      test.slow();
      const bot = `bot-${Date.now()}@example.test`;
      await openWaiver(page);
      await fillFields(page, bot);
      await page
        .locator('#waiver-form input[name="website"]')
        .evaluate((input: HTMLInputElement) => (input.value = 'https://spam.example'));
      await terms(page).check();
      await drawWithMouse(page);
      await pastTimeTrap(page);
      await submitButton(page).click();
      await expect(toast(page, 'Waiver submitted successfully!')).toBeVisible({
        timeout: 45_000,
      });
      // Once the outbox owes nothing, every mail there will be is here: none to or about it.
      await mailSettled(browser, smtp, STAFF);
      // (The studio's copy of a waiver has the participant as its Reply-To.)
      const about = (mail: ReceivedMail) =>
        [...mail.envelope.to, mail.replyTo?.text, mail.subject, mail.text].join(' ').includes(bot);
      expect(smtp.mails.filter(about)).toEqual([]);
    });
  });

  test('lets the waiver text be scrolled with the keyboard', async ({ page }) => {
    await openWaiver(page);
    const text = page.getByRole('region', { name: 'Liability waiver text' });
    await text.focus();
    await expect(text).toBeFocused();
    await page.keyboard.press('PageDown');
    await expect.poll(() => text.evaluate((el) => el.scrollTop)).toBeGreaterThan(0);
    await expect(text).toContainText('I agree to sign this waiver electronically');
  });
});

test.describe('the waiver form on a phone', () => {
  test.use({ viewport: { width: 375, height: 667 }, hasTouch: true, isMobile: true });

  test('draws with a finger and keeps the drawing through resizes and rotation', async ({
    page,
  }) => {
    await openWaiver(page);
    const box = (await pad(page).boundingBox())!;
    expect(box.width).toBeLessThan(375);
    expect(box.height).toBeCloseTo(box.width / 2, 0);

    const cdp = await page.context().newCDPSession(page);
    const at = (fx: number, fy: number) => [
      { x: box.x + box.width * fx, y: box.y + box.height * fy },
    ];
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: at(0.2, 0.5) });
    for (let i = 1; i <= 15; i++) {
      await cdp.send('Input.dispatchTouchEvent', {
        type: 'touchMove',
        touchPoints: at(0.2 + i * 0.04, 0.5 + 0.2 * Math.sin(i / 2)),
      });
    }
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    await expect(hint(page)).toBeHidden();
    const drawn = await inkPixels(page);
    expect(drawn).toBeGreaterThan(30);

    // The address bar appearing: only the height changes, and nothing is redrawn.
    await page.setViewportSize({ width: 375, height: 560 });
    // Two frames drawn since: the pad's resize handling has run.
    await page.evaluate(
      () => new Promise((drawn) => requestAnimationFrame(() => requestAnimationFrame(drawn))),
    );
    expect(await inkPixels(page)).toBe(drawn);

    // Rotation: the pad grows back to 400x200 and the drawing is scaled with it.
    await page.setViewportSize({ width: 667, height: 375 });
    await expect.poll(async () => (await pad(page).boundingBox())!.width).toBe(400);
    await expect.poll(() => inkPixels(page)).toBeGreaterThan(30);
    await expect(hint(page)).toBeHidden();
  });
});

test.describe('the waiver form before its script has arrived', () => {
  test('Submit Waiver is disabled from the first paint, follows the terms box, and hydration keeps it', async ({
    page,
  }) => {
    // Every frame before its paint notes the button's state, from the first one that has it.
    await page.addInitScript(() => {
      const frames: (boolean | null)[] = ((window as unknown as { frames_: unknown }).frames_ = []);
      const look = () => {
        const button = document.querySelector<HTMLButtonElement>('button[data-terms-gate]');
        frames.push(button ? button.disabled : null);
        if (frames.length < 600) requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
    });
    const release = await holdScript(page, 'WaiverForm');
    await page.goto('/waiver', { waitUntil: 'domcontentloaded' });
    await expect(island(page, 'WaiverForm')).toHaveAttribute('ssr');
    await expect(submitButton(page)).toBeDisabled();
    const painted = await page.evaluate(() =>
      (window as unknown as { frames_: (boolean | null)[] }).frames_.filter((f) => f !== null),
    );
    expect(painted.length).toBeGreaterThan(0);
    expect(painted.every((disabled) => disabled)).toBe(true);
    // No script of the form's own has loaded: the page's inline line did it.
    const bundles = await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .map((entry) => entry.name)
        .filter((name) => /WaiverForm|SignaturePad|client\./.test(name)),
    );
    expect(bundles).toEqual([]);

    await terms(page).check();
    await expect(submitButton(page)).toBeEnabled();
    await terms(page).uncheck();
    await expect(submitButton(page)).toBeDisabled();

    release();
    await page.getByLabel('First Name').focus();
    await expect(island(page, 'WaiverForm')).not.toHaveAttribute('ssr');
    await expect(submitButton(page)).toBeDisabled();
    await terms(page).check();
    await expect(submitButton(page)).toBeEnabled();
    await terms(page).uncheck();
    await expect(submitButton(page)).toBeDisabled();
  });

  test('keeps everything typed, ticked and signed by name, and sends it once hydrated', async ({
    page,
  }) => {
    const release = await holdScript(page, 'WaiverForm');
    let sent: { waiver: Record<string, unknown> } | undefined;
    await page.route('**/api/submit-waiver', (route) => {
      sent = route.request().postDataJSON();
      return route.fulfill({ status: 200, json: { success: true, id: 'test' } });
    });
    await page.goto('/waiver', { waitUntil: 'domcontentloaded' });
    await fillFields(page);
    await terms(page).check();
    await photos(page).check();
    await page.getByLabel('Type your full name to sign').fill('Ingrid Okonkwo');
    await expect(island(page, 'WaiverForm')).toHaveAttribute('ssr');

    release();
    await expect(island(page, 'WaiverForm')).not.toHaveAttribute('ssr');
    await expect(page.getByLabel('Medical Conditions or Injuries')).toHaveValue('Old knee injury');
    await expect(terms(page)).toBeChecked();
    await expect(hint(page)).toBeHidden();
    expect(await inkPixels(page)).toBeGreaterThan(50);
    await expect(submitButton(page)).toBeEnabled();
    await submitButton(page).click();
    await expect(toast(page, 'Waiver submitted successfully!')).toBeVisible();
    expect(sent?.waiver).toMatchObject({
      firstName: 'Ingrid',
      medicalConditions: 'Old knee injury',
      agreedToTerms: true,
      agreedToPhotos: true,
      signatureName: 'Ingrid Okonkwo',
      signatureKind: 'typed',
      signature: expect.stringMatching(/^data:image\/png;base64,/),
    });
  });

  test('draws from the first touch, and the pad keeps the strokes when it takes over', async ({
    page,
  }) => {
    const release = await holdScript(page, 'WaiverForm');
    await page.goto('/waiver', { waitUntil: 'domcontentloaded' });
    await drawWithMouse(page);
    // Inked by the page's own small script: React has not arrived.
    await expect(island(page, 'WaiverForm')).toHaveAttribute('ssr');
    const early = await inkPixels(page);
    expect(early).toBeGreaterThan(50);

    release();
    await expect(island(page, 'WaiverForm')).not.toHaveAttribute('ssr');
    await expect(hint(page)).toBeHidden();
    await expect.poll(() => inkPixels(page)).toBeGreaterThan(50);
    const signature = await page.locator('input[type="hidden"][name="signature"]').inputValue();
    expect(signature).toMatch(/^data:image\/png;base64,/);

    // And it draws on: a second stroke after hydration is the pad's own.
    await drawWithMouse(page);
    await page.getByRole('button', { name: 'Clear Signature' }).click();
    expect(await inkPixels(page)).toBe(0);
  });

  test('starts from a signature image the page already holds (a form given back by the browser)', async ({
    page,
  }) => {
    const release = await holdScript(page, 'WaiverForm');
    await page.goto('/waiver', { waitUntil: 'domcontentloaded' });
    await page
      .locator('input[type="hidden"][name="signature"]')
      .evaluate((input: HTMLInputElement, image) => (input.value = image), signaturePng());
    release();
    await hydrate(page, 'WaiverForm', page.getByLabel('First Name'));
    await expect(hint(page)).toBeHidden();
    await expect.poll(() => inkPixels(page)).toBeGreaterThan(50);
  });
});
