import { expect, test, type Page } from '@playwright/test';
import { mailbox } from './mailbox';
import { mailSettled } from './desk';
import { holdScript, hydrate, island } from './islands';

const STUDIO_INBOX = 'studio-inbox@example.test';
const STUDIO_EMAIL = 'hello@stillpointpilates.studio';
/** Who may sign in to the desk (playwright.config.ts STAFF_EMAILS). */
const STAFF = 'maya@example.test';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const smtp = mailbox();

test.afterEach(() => {
  smtp.setFailing(false);
});

function contactForm(page: Page) {
  const form = page.locator('form#contact-form');
  return {
    form,
    name: form.getByRole('textbox', { name: 'Name' }),
    email: form.getByRole('textbox', { name: 'Email' }),
    service: form.getByRole('combobox', { name: 'Service Interest' }),
    message: form.getByRole('textbox', { name: 'Message' }),
    submit: form.getByRole('button', { name: /Send Message|Sending\.\.\./ }),
  };
}

async function openForm(page: Page) {
  await page.goto('/contact');
  const fields = contactForm(page);
  await hydrate(page, 'ContactForm', fields.name);
  return fields;
}

/** People take seconds to fill in the form; the time trap takes anything faster for a bot. */
async function pastTimeTrap(page: Page) {
  await page.waitForFunction(() => performance.now() > 3_500);
}

async function fillIn(fields: ReturnType<typeof contactForm>, name: string) {
  await fields.name.fill(name);
  await fields.email.fill('visitor@example.test');
  await fields.service.selectOption('small-group');
  await fields.message.fill('Hello!\nDo you have room in a small group class?');
}

test('sends a filled-in message: success notice, cleared fields and the mail in the studio inbox', async ({
  page,
}) => {
  test.slow();
  const fields = await openForm(page);
  const name = `Playwright Visitor ${Date.now()}`;
  await fillIn(fields, name);
  await pastTimeTrap(page);
  await fields.submit.click();

  // The first message to a fresh server also starts its database connection.
  await expect(page.getByText('Message sent successfully!')).toBeVisible({ timeout: 45_000 });
  await expect(
    page.getByText("Thank you for reaching out. I'll get back to you within 24 hours."),
  ).toBeVisible();
  for (const field of [fields.name, fields.email, fields.service, fields.message]) {
    await expect(field).toHaveValue('');
  }
  await expect(fields.submit).toHaveText('Send Message');

  await expect
    .poll(() => smtp.mails.find((mail) => mail.subject === `New Inquiry from ${name}`))
    .toBeTruthy();
  const mail = smtp.mails.find((m) => m.subject === `New Inquiry from ${name}`)!;
  expect(mail.envelope.to).toEqual([STUDIO_INBOX]);
  expect(mail.replyTo?.text).toBe('visitor@example.test');
  expect(mail.html).toContain('Small Group Class');
  // The message's line breaks as <br> (React writes the void element as <br/>).
  expect(mail.html).toMatch(/Hello!<br\s*\/?>Do you have room/);
});

for (const [failure, fail] of [
  ['the server answers 500', { status: 500, body: '{"ok":false,"error":"Something broke"}' }],
  ['the network fails', null],
] as const) {
  test(`shows the error notice with the studio e-mail and keeps the fields when ${failure}`, async ({
    page,
  }) => {
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.route('**/api/send-email', (route) =>
      fail ? route.fulfill({ ...fail, contentType: 'application/json' }) : route.abort('failed'),
    );
    const fields = await openForm(page);
    await fillIn(fields, 'Kept Visitor');
    await fields.submit.click();

    await expect(page.getByText('Error sending message')).toBeVisible();
    await expect(
      page.getByText(`Please try again or contact me directly at ${STUDIO_EMAIL}`),
    ).toBeVisible();
    await expect(fields.name).toHaveValue('Kept Visitor');
    await expect(fields.email).toHaveValue('visitor@example.test');
    await expect(fields.service).toHaveValue('small-group');
    await expect(fields.message).toHaveValue('Hello!\nDo you have room in a small group class?');
    await expect(fields.submit).toBeEnabled();
    expect(errors.some((text) => text.includes('Error sending message'))).toBe(true);
  });
}

test("reads 'Sending...' with the button disabled while the request is pending", async ({
  page,
}) => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/api/send-email', async (route) => {
    await held;
    await route.fulfill({
      status: 200,
      contentType: 'application/json',
      body: '{"success":true,"id":"test"}',
    });
  });
  const fields = await openForm(page);
  await fillIn(fields, 'Patient Visitor');
  await fields.submit.click();

  await expect(fields.submit).toHaveText('Sending...');
  await expect(fields.submit).toBeDisabled();
  release();
  await expect(fields.submit).toHaveText('Send Message');
  await expect(fields.submit).toBeEnabled();
  await expect(page.getByText('Message sent successfully!')).toBeVisible();
});

test("'Book Free Consultation' leads to the page where the consultation is booked", async ({
  page,
}) => {
  await page.goto('/contact');
  await page.getByRole('link', { name: 'Book Free Consultation' }).click();
  await expect(page).toHaveURL(/\/consultation$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Book Your Free Consultation');
});

test('a link asking for the consultation opens the form with Consultation selected', async ({
  page,
}) => {
  await page.goto('/contact?service=consultation#contact-form');
  const fields = contactForm(page);
  await expect(fields.service).toHaveValue('consultation');
  await expect(fields.form).toBeInViewport();
});

test('a link asking for a service the form does not offer leaves the placeholder chosen', async ({
  page,
}) => {
  await page.goto('/contact?service=bogus#contact-form');
  const fields = contactForm(page);
  await expect(fields.service).toHaveValue('');
  await expect(fields.service.locator('option:checked')).toHaveText('Select a service...');
});

test('shows a field error from the server at the field, marked invalid and described', async ({
  page,
}) => {
  await page.route('**/api/send-email', (route) =>
    route.fulfill({
      status: 422,
      contentType: 'application/json',
      body: JSON.stringify({
        success: false,
        error: 'Please enter a valid e-mail address, like name@example.com.',
        fieldErrors: { email: 'Please enter a valid e-mail address, like name@example.com.' },
      }),
    }),
  );
  const fields = await openForm(page);
  await fillIn(fields, 'Typo Visitor');
  await fields.submit.click();

  await expect(fields.email).toHaveAttribute('aria-invalid', 'true');
  await expect(fields.email).toHaveAccessibleDescription(
    'Please enter a valid e-mail address, like name@example.com.',
  );
  await expect(fields.email).toBeFocused();
  await expect(fields.name).not.toHaveAttribute('aria-invalid');
  await expect(page.getByText('Error sending message')).toBeVisible();

  await fields.email.fill('visitor@example.org');
  await expect(fields.email).not.toHaveAttribute('aria-invalid');
});

test('checks the fields with the shared schema before sending anything', async ({ page }) => {
  let requests = 0;
  await page.route('**/api/send-email', (route) => {
    requests += 1;
    return route.abort();
  });
  const fields = await openForm(page);
  await fillIn(fields, '   ');
  await fields.submit.click();

  await expect(fields.name).toHaveAttribute('aria-invalid', 'true');
  await expect(fields.name).toHaveAccessibleDescription('Please enter your name.');
  await expect(fields.name).toBeFocused();
  expect(requests).toBe(0);
});

test('keeps what was typed before the form script arrived and sends it', async ({ page }) => {
  const release = await holdScript(page, 'ContactForm');
  let sent: unknown;
  await page.route('**/api/send-email', (route) => {
    sent = route.request().postDataJSON();
    return route.fulfill({
      status: 200,
      contentType: 'application/json',
      body: '{"success":true,"id":"test"}',
    });
  });
  await page.goto('/contact', { waitUntil: 'domcontentloaded' });
  const fields = contactForm(page);
  await fillIn(fields, 'Early Visitor');
  // Not hydrated yet, and still a form that can be sent: the browser would post it itself.
  await expect(island(page, 'ContactForm')).toHaveAttribute('ssr');
  await expect(fields.submit).toBeEnabled();

  release();
  await expect(island(page, 'ContactForm')).not.toHaveAttribute('ssr');
  await expect(fields.name).toHaveValue('Early Visitor');
  await expect(fields.service).toHaveValue('small-group');
  await fields.submit.click();
  await expect(page.getByText('Message sent successfully!')).toBeVisible();
  expect(sent).toEqual({
    name: 'Early Visitor',
    email: 'visitor@example.test',
    service: 'small-group',
    message: 'Hello!\nDo you have room in a small group class?',
    website: '',
    fillTimeMs: expect.any(Number),
    submissionId: expect.stringMatching(UUID),
  });
});

test('loads no script until the form is touched, then the form island', async ({ page }) => {
  const scripts: string[] = [];
  page.on('request', (request) => {
    if (request.resourceType() === 'script') scripts.push(request.url());
  });
  await page.goto('/contact');
  await page.waitForLoadState('networkidle');
  expect(scripts).toEqual([]);
  await contactForm(page).message.click();
  await expect.poll(() => scripts.some((url) => url.includes('ContactForm'))).toBe(true);
});

test('loads the contact form script on the contact page only', async ({ page }) => {
  const scripts: string[] = [];
  page.on('request', (request) => {
    if (request.resourceType() === 'script') scripts.push(request.url());
  });
  await page.goto('/');
  await page.waitForLoadState('networkidle');
  expect(scripts.filter((url) => url.includes('ContactForm'))).toEqual([]);
});

test.describe('when the server refuses the form for a reason of its own', () => {
  for (const [status, headers, words] of [
    [
      429,
      { 'retry-after': '120' },
      'Too many messages have been sent from your connection. Please try again in 2 minutes.',
    ],
    [413, {}, 'Your message is too long to send. Please shorten it and try again.'],
    [403, {}, 'The form could not be sent from this page. Please reload the page and try again.'],
  ] as const) {
    for (const [answer, body] of [
      ['its words', JSON.stringify({ success: false, error: words })],
      ['no JSON (a proxy)', '<h1>Refused</h1>'],
    ] as const) {
      test(`${status} with ${answer}: says what happened and keeps the fields`, async ({
        page,
      }) => {
        await page.route('**/api/send-email', (route) =>
          route.fulfill({
            status,
            headers,
            contentType: body.startsWith('{') ? 'application/json' : 'text/html',
            body,
          }),
        );
        const fields = await openForm(page);
        await fillIn(fields, 'Refused Visitor');
        await fields.submit.click();
        await expect(page.getByText('Error sending message')).toBeVisible();
        await expect(
          page.getByText(`${words} Please try again or contact me directly at ${STUDIO_EMAIL}`),
        ).toBeVisible();
        await expect(fields.name).toHaveValue('Refused Visitor');
        await expect(fields.submit).toBeEnabled();
      });
    }
  }
});

test.describe('the honeypot', () => {
  test('is hidden from people, screen readers, Tab and autofill, and sent empty', async ({
    page,
  }) => {
    let sent: Record<string, unknown> = {};
    await page.route('**/api/send-email', (route) => {
      sent = route.request().postDataJSON();
      return route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: '{"success":true,"id":"test"}',
      });
    });
    const fields = await openForm(page);
    const trap = fields.form.locator('input[name="website"]');
    await expect(trap).toHaveAttribute('tabindex', '-1');
    await expect(trap).toHaveAttribute('autocomplete', 'off');
    const hidden = trap.locator('xpath=ancestor::*[@aria-hidden="true"]');
    await expect(hidden).toHaveCount(1);
    // Clipped to a single transparent pixel: nothing of it shows.
    const box = await hidden.boundingBox();
    expect((box?.width ?? 0) * (box?.height ?? 0)).toBeLessThanOrEqual(1);
    await expect(hidden).toHaveCSS('overflow', 'hidden');
    await expect(fields.form.getByRole('textbox', { name: /leave this field/i })).toHaveCount(0);

    await fields.message.focus();
    await page.keyboard.press('Tab');
    await expect(fields.submit).toBeFocused();

    await fillIn(fields, 'Honest Visitor');
    await fields.submit.click();
    await expect(page.getByText('Message sent successfully!')).toBeVisible();
    expect(sent.website).toBe('');
    expect(sent.fillTimeMs).toBeGreaterThan(0);
  });

  test('a bot that fills it in is told the message was sent, but no mail goes out', async ({
    page,
    browser,
  }) => {
    // The desk is signed in to as well, to see the outbox settle.
    test.slow();
    const fields = await openForm(page);
    const name = `Bot ${Date.now()}`;
    await fillIn(fields, name);
    await fields.form
      .locator('input[name="website"]')
      .evaluate((input: HTMLInputElement) => (input.value = 'https://spam.example'));
    await pastTimeTrap(page);
    await fields.submit.click();
    await expect(page.getByText('Message sent successfully!')).toBeVisible();
    await mailSettled(browser, smtp, STAFF);
    expect(smtp.mails.some((mail) => mail.subject === `New Inquiry from ${name}`)).toBe(false);
  });
});

test('keeps the fields and says so when the database is down (503)', async ({ page }) => {
  await page.route('**/api/send-email', (route) =>
    route.fulfill({
      status: 503,
      contentType: 'application/json',
      headers: { 'retry-after': '30' },
      body: JSON.stringify({
        success: false,
        error: 'Your message could not be saved just now. Please try again shortly.',
      }),
    }),
  );
  const fields = await openForm(page);
  await fillIn(fields, 'Patient Visitor');
  await fields.submit.click();

  await expect(page.getByText('Error sending message')).toBeVisible();
  await expect(fields.name).toHaveValue('Patient Visitor');
  await expect(fields.email).toHaveValue('visitor@example.test');
  await expect(fields.service).toHaveValue('small-group');
  await expect(fields.message).toHaveValue('Hello!\nDo you have room in a small group class?');
  await expect(fields.submit).toBeEnabled();
});

test('sends one submission id across retries of the same message and a new one after success', async ({
  page,
}) => {
  const ids: string[] = [];
  let failing = true;
  await page.route('**/api/send-email', (route) => {
    const { submissionId } = route.request().postDataJSON() as { submissionId: string };
    ids.push(submissionId);
    return failing
      ? route.fulfill({
          status: 503,
          contentType: 'application/json',
          body: '{"success":false,"error":"Try again."}',
        })
      : route.fulfill({
          status: 200,
          contentType: 'application/json',
          body: JSON.stringify({ success: true, id: submissionId }),
        });
  });
  const fields = await openForm(page);
  await fillIn(fields, 'Retrying Visitor');
  await fields.submit.click();
  await expect(page.getByText('Error sending message')).toBeVisible();
  await expect(fields.submit).toBeEnabled();
  failing = false;
  await fields.submit.click();
  await expect(page.getByText('Message sent successfully!')).toBeVisible();

  await fillIn(fields, 'Retrying Visitor');
  await fields.submit.click();
  await expect.poll(() => ids.length).toBe(3);
  expect(ids[0]).toMatch(UUID);
  expect(ids[1]).toBe(ids[0]);
  expect(ids[2]).toMatch(UUID);
  expect(ids[2]).not.toBe(ids[0]);
});

test('a double click sends one message: one mail reaches the studio', async ({ page, browser }) => {
  test.slow();
  const fields = await openForm(page);
  const name = `Double Clicker ${Date.now()}`;
  await fillIn(fields, name);
  await pastTimeTrap(page);
  await fields.submit.dblclick();
  // Each call runs in a fresh worker of the local emulator: seconds on a busy small machine.
  await expect(page.getByText('Message sent successfully!')).toBeVisible({ timeout: 30_000 });
  await expect
    .poll(() => smtp.mails.filter((mail) => mail.subject === `New Inquiry from ${name}`).length)
    .toBe(1);
  await mailSettled(browser, smtp, STAFF);
  expect(smtp.mails.filter((mail) => mail.subject === `New Inquiry from ${name}`)).toHaveLength(1);
});

test('a message sent while the mail server is down is saved at once and mailed by the local retry once it is back', async ({
  page,
}) => {
  test.slow();
  smtp.setFailing(true);
  const fields = await openForm(page);
  const name = `Outage Visitor ${Date.now()}`;
  await fillIn(fields, name);
  await pastTimeTrap(page);
  await fields.submit.click();
  await expect(page.getByText('Message sent successfully!')).toBeVisible({ timeout: 30_000 });
  await expect(fields.name).toHaveValue('');
  expect(smtp.mails.filter((mail) => mail.subject === `New Inquiry from ${name}`)).toHaveLength(0);

  smtp.setFailing(false);
  // npm start drains the outbox every OUTBOX_INTERVAL_MS (shortened for the tests).
  await expect
    .poll(() => smtp.mails.filter((mail) => mail.subject === `New Inquiry from ${name}`).length, {
      timeout: 20_000,
    })
    .toBe(1);
});

test('a message that gets no answer says so after 30 seconds, keeps the fields, and is safe to send again', async ({
  page,
}) => {
  await page.clock.install();
  const ids: string[] = [];
  let answer = false;
  await page.route('**/api/send-email', async (route) => {
    const { submissionId } = route.request().postDataJSON() as { submissionId: string };
    ids.push(submissionId);
    if (!answer) return; // never answered: the connection hangs
    await route.fulfill({ status: 200, json: { success: true, id: submissionId } });
  });
  const fields = await openForm(page);
  await fillIn(fields, 'Waiting Visitor');
  await fields.submit.click();
  await expect(fields.submit).toHaveText('Sending...');
  await page.clock.runFor(30_000);
  await expect(page.getByText('Error sending message')).toBeVisible();
  await expect(
    page.getByText(`Please try again or contact me directly at ${STUDIO_EMAIL}`),
  ).toBeVisible();
  await expect(fields.name).toHaveValue('Waiting Visitor');
  await expect(fields.submit).toHaveText('Send Message');

  answer = true;
  await fields.submit.click();
  await expect(page.getByText('Message sent successfully!')).toBeVisible();
  expect(ids).toHaveLength(2);
  expect(ids[1]).toBe(ids[0]);
});
