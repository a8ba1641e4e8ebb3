/**
 * Both forms with JavaScript turned off, on a phone: plain HTML form posts, answered with pages
 * in the product's words, the typed fields kept on the way back, mail delivered for real.
 */
import { expect, test, type Page } from '@playwright/test';
import sendEmail from '../../functions/send-email';
import { pdfText } from '../fixtures/pdf-text';
import { mailbox } from './mailbox';
import { expectNoViolationsWithoutScript } from './axe';
import { looker } from './look';

const STUDIO_INBOX = 'studio-inbox@example.test';
const STUDIO_EMAIL = 'hello@stillpointpilates.studio';

const look = looker('test-results/no-script');

/**
 * The refusal page a post lands on: /refused, rendered on demand with the site's layout, its
 * status the refusal's, never cached, and nothing typed in its address (`typed`).
 */
async function expectRefused(page: Page, status: number, typed: string[]) {
  const answer = await page.waitForResponse((response) => response.url().includes('/refused?'));
  expect(answer.status()).toBe(status);
  expect(answer.headers()['cache-control']).toBe('no-store');
  expect(answer.headers()['x-robots-tag']).toMatch(/noindex/);
  const address = new URL(answer.url());
  expect(address.pathname).toBe('/refused');
  const words = Buffer.from(address.searchParams.get('words') ?? '', 'base64url').toString();
  for (const value of typed) {
    expect(decodeURIComponent(answer.url())).not.toContain(value);
    expect(words).not.toContain(value);
  }
}

const smtp = mailbox();

test.use({ javaScriptEnabled: false, viewport: { width: 375, height: 740 } });

async function fillContact(page: Page, name: string, email = 'noscript@example.test') {
  await page.goto('/contact');
  const form = page.locator('form#contact-form');
  await form.getByRole('textbox', { name: 'Name' }).fill(name);
  await form.getByRole('textbox', { name: 'Email' }).fill(email);
  await form.getByRole('combobox', { name: 'Service Interest' }).selectOption('prenatal');
  await form.getByRole('textbox', { name: 'Message' }).fill('Sent with scripts turned off.');
  return form;
}

async function fillWaiver(page: Page, email: string, phone = '503-555-0142') {
  await page.goto('/waiver');
  await page.getByLabel('First Name').fill('Noor');
  await page.getByLabel('Last Name').fill('Haddad');
  await page.getByLabel('Email').fill(email);
  await page.getByRole('textbox', { name: 'Phone', exact: true }).fill(phone);
  await page.getByLabel('Emergency Contact Name').fill('Sami Haddad');
  await page.getByLabel('Emergency Contact Phone').fill('503-555-0199');
  await page.getByLabel('Medical Conditions or Injuries').fill('Old ankle sprain');
  await page.getByLabel('Type your full name to sign').fill('Noor Haddad');
}

const terms = (page: Page) => page.getByRole('checkbox', { name: /agree to the liability waiver/ });

test.describe('the contact form', () => {
  test("sends a message: the sent page in the product's words, and the mail in the studio inbox", async ({
    page,
    browser,
  }) => {
    const name = `No Script ${Date.now()}`;
    const form = await fillContact(page, name);
    await form.getByRole('button', { name: 'Send Message' }).click();
    await expect(page).toHaveURL(/\/contact\/sent$/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Message sent successfully!');
    await expect(
      page.getByText("Thank you for reaching out. I'll get back to you within 24 hours."),
    ).toBeVisible();
    await expect(page.locator('meta[name="robots"]')).toHaveAttribute('content', 'noindex');
    await expectNoViolationsWithoutScript(browser, page);

    await expect
      .poll(() => smtp.mails.find((m) => m.subject === `New Inquiry from ${name}`))
      .toBeTruthy();
    const mail = smtp.mails.find((m) => m.subject === `New Inquiry from ${name}`)!;
    expect(mail.envelope.to).toEqual([STUDIO_INBOX]);
    expect(mail.html).toContain('Prenatal Pilates');
    expect(mail.text).toContain('Sent from a browser without JavaScript');
  });

  test('a field only the server can check: the page names it, and Back keeps everything typed', async ({
    page,
    browser,
  }) => {
    const form = await fillContact(page, 'Typo Visitor', 'typo@example');
    const refused = expectRefused(page, 422, [
      'Typo Visitor',
      'typo@example',
      'scripts turned off',
    ]);
    await form.getByRole('button', { name: 'Send Message' }).click();
    await refused;
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Error sending message');
    await expect(page.getByText('Please fix the fields below.')).toBeVisible();
    await expect(page.getByRole('alert').getByRole('listitem')).toHaveText(
      'Email: Please enter a valid e-mail address, like name@example.com.',
    );
    await expect(
      page.getByText(`Please try again or contact me directly at ${STUDIO_EMAIL}`),
    ).toBeVisible();
    await expect(page.getByRole('link', { name: 'Return to the contact page' })).toHaveAttribute(
      'href',
      '/contact',
    );
    await expectNoViolationsWithoutScript(browser, page);
    await look(page, 'contact-refused');

    await page.goBack();
    await expect(form.getByRole('textbox', { name: 'Name' })).toHaveValue('Typo Visitor');
    await expect(form.getByRole('textbox', { name: 'Email' })).toHaveValue('typo@example');
    await expect(form.getByRole('combobox', { name: 'Service Interest' })).toHaveValue('prenatal');
    await expect(form.getByRole('textbox', { name: 'Message' })).toHaveValue(
      'Sent with scripts turned off.',
    );
  });

  test("the database down: the page says so in the product's words, and Back keeps everything typed", async ({
    page,
  }) => {
    // The function's own answer with its database unreachable, run here against a closed port.
    await page.route('**/api/send-email', async (route) => {
      const request = route.request();
      const saved = { NETLIFY_DB_URL: process.env.NETLIFY_DB_URL, URL: process.env.URL };
      process.env.NETLIFY_DB_URL = 'postgres://postgres@127.0.0.1:1/postgres';
      // The site's address, as npm start tells its functions: the origin the form posts from.
      process.env.URL = new URL(request.url()).origin;
      try {
        const response = await sendEmail(
          new Request(request.url(), {
            method: request.method(),
            headers: await request.allHeaders(),
            body: new Uint8Array(request.postDataBuffer() ?? []),
          }),
          { ip: '127.0.0.1' },
        );
        await route.fulfill({
          status: response.status,
          headers: Object.fromEntries(response.headers),
          body: Buffer.from(await response.arrayBuffer()),
        });
      } finally {
        for (const [name, value] of Object.entries(saved)) {
          if (value === undefined) delete process.env[name];
          else process.env[name] = value;
        }
      }
    });
    const form = await fillContact(page, 'Patient Visitor');
    const refused = expectRefused(page, 503, ['Patient Visitor']);
    await form.getByRole('button', { name: 'Send Message' }).click();
    await refused;
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Error sending message');
    await expect(
      page.getByText('Your message could not be saved just now. Please try again shortly.'),
    ).toBeVisible();
    await expect(
      page.getByText(`Please try again or contact me directly at ${STUDIO_EMAIL}`),
    ).toBeVisible();
    await page.goBack();
    await expect(form.getByRole('textbox', { name: 'Name' })).toHaveValue('Patient Visitor');
  });
});

test.describe('the waiver', () => {
  test('signed with a typed name: the signed page, the PDF in the records inbox, a copy to the participant', async ({
    page,
    browser,
  }) => {
    test.slow();
    const email = `noscript-${Date.now()}@example.test`;
    await fillWaiver(page, email);
    await terms(page).check();
    await page.getByRole('button', { name: 'Submit Waiver' }).click();
    await expect(page).toHaveURL(/\/waiver\/signed$/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(
      'Waiver submitted successfully!',
    );
    await expect(
      page.getByText(
        'Your liability waiver has been processed and saved. A copy has been sent to our records.',
      ),
    ).toBeVisible();
    await expectNoViolationsWithoutScript(browser, page);

    const mine = () =>
      smtp.mails.filter((mail) => mail.replyTo?.text === email || mail.envelope.to.includes(email));
    await expect.poll(() => mine().length, { timeout: 20_000 }).toBe(2);
    const records = mine().find((mail) => mail.envelope.to.includes(STUDIO_INBOX))!;
    const pdf = await pdfText(records.attachments[0]!.content);
    expect(pdf).toContain('Signature: Typed name, drawn by the server');
    expect(pdf).toContain('Name typed to sign: Noor Haddad');
    expect(pdf).toContain('Old ankle sprain');
  });

  test('the terms not ticked: Submit Waiver is enabled, the browser asks for them and nothing is sent', async ({
    page,
  }) => {
    const email = `unticked-${Date.now()}@example.test`;
    await fillWaiver(page, email);
    let posted = false;
    page.on('request', (request) => {
      if (request.method() === 'POST') posted = true;
    });
    await expect(page.getByRole('button', { name: 'Submit Waiver' })).toBeEnabled();
    await page.getByRole('button', { name: 'Submit Waiver' }).click();
    await expect(page).toHaveURL(/\/waiver$/);
    expect(await terms(page).evaluate((box: HTMLInputElement) => box.validity.valueMissing)).toBe(
      true,
    );
    expect(posted).toBe(false);
  });

  test('a field only the server can check: the page names it, and Back keeps everything typed', async ({
    page,
    browser,
  }) => {
    await fillWaiver(page, `typo-${Date.now()}@example.test`, '12');
    await terms(page).check();
    const refused = expectRefused(page, 422, ['Old ankle sprain', 'Noor', 'Sami Haddad']);
    await page.getByRole('button', { name: 'Submit Waiver' }).click();
    await refused;
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Error submitting waiver');
    await expect(page.getByRole('alert').getByRole('listitem')).toHaveText(
      'Phone: Please enter a phone number with at least 7 digits.',
    );
    await expect(page.getByText('Please try again or contact us directly.')).toBeVisible();
    await expectNoViolationsWithoutScript(browser, page);
    await look(page, 'waiver-refused');

    await page.goBack();
    await expect(page.getByLabel('First Name')).toHaveValue('Noor');
    await expect(page.getByRole('textbox', { name: 'Phone', exact: true })).toHaveValue('12');
    await expect(page.getByLabel('Medical Conditions or Injuries')).toHaveValue('Old ankle sprain');
    await expect(page.getByLabel('Type your full name to sign')).toHaveValue('Noor Haddad');
    await expect(terms(page)).toBeChecked();
  });
});
