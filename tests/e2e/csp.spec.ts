import { expect, test, type Page } from '@playwright/test';
import { hydrate } from './islands';
import { E2E_SMTP_PORT } from '../../playwright.config';
import { startSmtp, type TestSmtp } from '../functions/harness';
import { builtPages } from './pages';

/**
 * The pages work under their Content-Security-Policy: nothing is blocked (no violation event,
 * no console error), the islands hydrate and the contact form sends.
 */
async function watchViolations(page: Page): Promise<string[]> {
  const violations: string[] = [];
  await page.exposeFunction('reportViolation', (text: string) => violations.push(text));
  // Init scripts come from the browser's driver, not the page, so the policy does not apply.
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      const report = (window as unknown as { reportViolation(text: string): void }).reportViolation;
      report(
        `${event.violatedDirective} blocked ${event.blockedURI || 'inline'} (${event.sample})`,
      );
    });
  });
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) {
      violations.push(message.text());
    }
  });
  return violations;
}

for (const path of builtPages()) {
  test(`${path} loads and hydrates with no CSP violation`, async ({ page }) => {
    const violations = await watchViolations(page);
    await page.goto(path, { waitUntil: 'networkidle' });
    // Focus and touch the page so `client:interaction` islands load too.
    await page.keyboard.press('Tab');
    await page.mouse.click(5, 5);
    await page.waitForLoadState('networkidle');
    expect(violations).toEqual([]);
  });
}

test.describe('on a phone', () => {
  test.use({ viewport: { width: 375, height: 740 } });

  test('the mobile menu still hydrates and opens under the policy', async ({ page }) => {
    const violations = await watchViolations(page);
    await page.goto('/services', { waitUntil: 'networkidle' });
    const toggle = page.getByRole('button', { name: 'Menu' });
    await toggle.click();
    await expect(page.locator('#mobile-menu')).toBeVisible();
    await expect(toggle).toHaveAttribute('aria-expanded', 'true');
    await page.keyboard.press('Escape');
    await expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(violations).toEqual([]);
  });
});

test.describe('the contact form', () => {
  let smtp: TestSmtp;
  test.beforeAll(async () => {
    smtp = await startSmtp(E2E_SMTP_PORT);
  });
  test.afterAll(async () => {
    await smtp?.stop();
  });

  test('still sends and shows its notice under the policy', async ({ page }) => {
    const violations = await watchViolations(page);
    await page.goto('/contact');
    const form = page.locator('form#contact-form');
    const submit = form.getByRole('button', { name: 'Send Message' });
    await hydrate(page, 'ContactForm', form.getByRole('textbox', { name: 'Name' }));
    const name = `CSP Visitor ${Date.now()}`;
    await form.getByRole('textbox', { name: 'Name' }).fill(name);
    await form.getByRole('textbox', { name: 'Email' }).fill('csp@example.test');
    await form.getByRole('textbox', { name: 'Message' }).fill('Does the form still work?');
    // The time trap wants the page open a few seconds, as it is for anyone who types.
    await page.waitForFunction(() => performance.now() > 3_500);
    await submit.click();
    await expect(page.getByText('Message sent successfully!')).toBeVisible();
    await expect
      .poll(() => smtp.mails.some((mail) => mail.subject === `New Inquiry from ${name}`))
      .toBe(true);
    expect(violations).toEqual([]);
  });
});

test.describe('the waiver form', () => {
  let smtp: TestSmtp;
  test.beforeAll(async () => {
    smtp = await startSmtp(E2E_SMTP_PORT);
  });
  test.afterAll(async () => {
    await smtp?.stop();
  });

  test('still signs, sends and shows its notice under the policy', async ({ page }) => {
    test.slow();
    const violations = await watchViolations(page);
    await page.goto('/waiver');
    await hydrate(page, 'WaiverForm', page.getByLabel('First Name'));
    const email = `csp-${Date.now()}@example.test`;
    await page.getByLabel('First Name').fill('Csp');
    await page.getByLabel('Last Name').fill('Visitor');
    await page.getByLabel('Email').fill(email);
    await page.getByRole('textbox', { name: 'Phone', exact: true }).fill('503-555-0142');
    await page.getByLabel('Emergency Contact Name').fill('Emergency Contact');
    await page.getByLabel('Emergency Contact Phone').fill('503-555-0199');
    await page.getByRole('checkbox', { name: /agree to the liability waiver/ }).check();
    await page.getByLabel('Type your full name to sign').fill('Csp Visitor');
    await page.waitForFunction(() => performance.now() > 5_500);
    await page.getByRole('button', { name: 'Submit Waiver' }).click();
    await expect(
      page.locator('[data-sonner-toast]').filter({ hasText: 'Waiver submitted successfully!' }),
    ).toBeVisible({ timeout: 45_000 });
    await expect.poll(() => smtp.mails.some((mail) => mail.envelope.to.includes(email))).toBe(true);
    expect(violations).toEqual([]);
  });
});
