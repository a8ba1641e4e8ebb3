import { expect, test, type Browser, type Page } from '@playwright/test';
import {
  E2E_PAY_PORT,
  E2E_SMTP_PORT,
  E2E_STRIPE_PORT,
  E2E_STRIPE_WEBHOOK_SECRET,
} from '../../playwright.config';
import { dollars } from '../../src/shared/money';
import { sessionPrice } from '../fixtures/prices';
import type { ReceivedMail } from '../fixtures/smtp';
import { startStripeStandIn, type SignedEvent, type StripeStandIn } from '../fixtures/stripe';
import { startSmtp, type TestSmtp } from '../functions/harness';
import { choose, freeTime } from './slots';
import { looker } from './look';

/**
 * Paying online in Chromium, at a phone's width with scripts off and on, against the second
 * `npm start` of playwright.config.ts: the studio's Stripe keys set, its own database, the real
 * `stripe` SDK talking to the stand-in this spec starts (tests/fixtures/stripe.ts). Stripe's
 * hosted page is Stripe's: the browser's request for it is answered here, never sent, and the
 * visitor's payment is the stand-in's `complete`, whose event (signed with the SDK's
 * `generateTestHeaderString`) the test delivers to the site's webhook, as Stripe would.
 *
 * The local database outlives a run: every visitor here is new, and every place paid for is
 * cancelled (and refunded) at the end.
 */
const PAY = `http://127.0.0.1:${E2E_PAY_PORT}`;
const STRIPE = `http://127.0.0.1:${E2E_STRIPE_PORT}`;
const RUN = Date.now().toString(36);
const PHONE = { width: 375, height: 812 };
/** The private session's price, from content: her price change keeps these tests green. */
const PRIVATE = sessionPrice('private');

let smtp: TestSmtp;
let stripe: StripeStandIn;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  smtp = await startSmtp(E2E_SMTP_PORT);
  stripe = await startStripeStandIn({
    port: E2E_STRIPE_PORT,
    webhookSecret: E2E_STRIPE_WEBHOOK_SECRET,
  });
});

test.afterAll(async () => {
  await smtp?.stop();
  await stripe?.close();
});

test.afterEach(() => {
  expect(stripe.violations).toEqual([]);
});

/**
 * A phone whose requests for Stripe's hosted page are answered here: the page is Stripe's. The
 * pages' policy lets a form's answer lead to https://checkout.stripe.com only (form-action, the
 * first test checks it), not to the stand-in's address, so the policy is set aside here.
 */
async function phone(browser: Browser, javaScriptEnabled: boolean): Promise<Page> {
  const context = await browser.newContext({
    baseURL: PAY,
    viewport: PHONE,
    javaScriptEnabled,
    bypassCSP: true,
  });
  await context.route(`${STRIPE}/pay/**`, (route) =>
    route.fulfill({
      status: 200,
      contentType: 'text/html',
      body: '<!doctype html><html lang="en"><title>Stripe Checkout</title><h1>Stripe Checkout</h1></html>',
    }),
  );
  return context.newPage();
}

/** The Checkout Session the site sent the visitor to (after its 303). */
async function checkoutOf(page: Page): Promise<string> {
  await expect(page).toHaveURL(new RegExp(`^${STRIPE}/pay/cs_test_\\w+$`));
  return /\/pay\/(cs_test_\w+)$/.exec(page.url())![1]!;
}

/** Stripe's event, delivered to the site's webhook as Stripe delivers it. */
async function deliver(event: SignedEvent): Promise<{ outcome?: string }> {
  const answer = await fetch(`${PAY}/api/stripe-webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': event.signature },
    body: event.payload,
  });
  expect(answer.status).toBe(200);
  return (await answer.json()) as { outcome?: string };
}

/** Where Stripe sends the visitor back once they paid (the checkout's success_url). */
const successPath = (checkout: string) => {
  const url = new URL(stripe.session(checkout).success_url!);
  return url.pathname + url.search;
};

async function mailWhere(match: (mail: ReceivedMail) => boolean): Promise<ReceivedMail> {
  await expect.poll(() => smtp.mails.some(match), { timeout: 20_000 }).toBe(true);
  return smtp.mails.filter(match).at(-1)!;
}

const look = looker('test-results/payments');

for (const [scripts, skip] of [
  [false, 0],
  [true, 1],
] as const) {
  test(`a private session booked and paid with scripts ${scripts ? 'on' : 'off'} at 375 px, confirmed by Stripe's event, cancelled and refunded`, async ({
    browser,
  }) => {
    test.slow();
    const page = await phone(browser, scripts);
    const email = `pay.${scripts ? 'script' : 'plain'}.${RUN}@example.test`;
    const shown = await page.goto('/book/private');
    // Its form's answer may lead to Stripe's hosted page, and nowhere else but the site.
    expect(shown!.headers()['content-security-policy']).toContain(
      "form-action 'self' https://checkout.stripe.com;",
    );
    const slot = await freeTime(page, skip);
    await choose(page, slot);
    await page.getByRole('textbox', { name: 'Name' }).fill('Ada Lovelace');
    await page.getByRole('textbox', { name: 'Email' }).fill(email);
    // With scripts the form is timed: the time trap takes anything under 3 s for a bot.
    if (scripts) await page.waitForFunction(() => performance.now() > 3_500);
    await page.getByRole('button', { name: 'Book this time' }).click();

    // The site answered with Stripe's page, for the price in content.
    const checkout = await checkoutOf(page);
    expect(stripe.session(checkout)).toMatchObject({ amount_total: PRIVATE.cents, status: 'open' });
    // The time is held: no one else is offered it meanwhile.
    const other = await phone(browser, scripts);
    await other.goto('/book/private');
    await expect(other.locator(`input[name="slot"][value="${slot}"]`)).toHaveCount(0);

    // Back from Stripe before its event: nothing is confirmed on a redirect alone.
    await page.goto(successPath(checkout));
    await expect(
      page.getByText(`${PRIVATE.words}, paid online: waiting for Stripe to confirm the payment`),
    ).toBeVisible();
    await expect(
      page.getByText(/Waiting for your payment\. This time is held for you until/),
    ).toBeVisible();
    await expect(page.getByRole('button', { name: 'Cancel my session' })).toHaveCount(0);
    await look(page, `session-held-${scripts ? 'script' : 'plain'}`);

    // The visitor pays; Stripe's event confirms the booking.
    expect(await deliver(stripe.complete(checkout))).toMatchObject({ outcome: 'paid' });
    await page.goto(successPath(checkout));
    await expect(page.getByText(`Paid: ${PRIVATE.words}`)).toBeVisible();
    const mail = await mailWhere((m) => m.envelope.to.includes(email));
    expect(mail.text).toContain(`Paid: ${PRIVATE.words}`);

    // Cancelled within the policy: refunded in full, once, and the mail says so.
    await page.getByRole('button', { name: 'Cancel my session' }).click();
    await expect(page.getByRole('status')).toHaveText(/Your session is cancelled/);
    const cancel = await mailWhere(
      (m) => m.envelope.to.includes(email) && (m.subject ?? '').startsWith('Cancelled:'),
    );
    expect(cancel.text).toContain(`Your payment of ${PRIVATE.words} is refunded in full`);
    const intent = stripe.session(checkout).payment_intent;
    expect(stripe.refunds().filter((r) => r.payment_intent === intent)).toHaveLength(1);
    await page.context().close();
    await other.context().close();
  });
}

const itemOf = (page: Page, which: { key: string; start: string }) =>
  page.locator(`li[data-class="${which.key}"][data-start="${which.start}"]`);

/** The open class with the fewest places left (at least one), and how many. */
async function nearlyFullClass(page: Page) {
  await page.goto('/classes');
  let best: { key: string; start: string; left: number } | undefined;
  for (const item of await page.locator('li[data-class]').all()) {
    if ((await item.getByText('Book a place').count()) === 0) continue;
    const left = Number(await item.locator('[data-places-left]').getAttribute('data-places-left'));
    if (left >= 1 && (!best || left < best.left)) {
      best = {
        key: (await item.getAttribute('data-class'))!,
        start: (await item.getAttribute('data-start'))!,
        left,
      };
    }
  }
  if (!best) throw new Error('no class with a place left');
  return best;
}

/** Books a place without a browser (the plain form's post): its place held, its checkout open. */
async function holdPlace(which: { key: string; start: string }, email: string, price: string) {
  const answer = await fetch(`${PAY}/api/classes/book`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: PAY },
    body: new URLSearchParams({
      class: which.key,
      start: which.start,
      price,
      name: 'Filler Visitor',
      email,
    }).toString(),
  });
  expect(answer.status).toBe(303);
  expect(answer.headers.get('location')).toMatch(new RegExp(`^${STRIPE}/pay/cs_test_\\w+$`));
}

async function fillIn(page: Page, which: { key: string; start: string }, who: string) {
  const item = itemOf(page, which);
  await item.getByText('Book a place').click();
  await item.getByLabel('Name', { exact: true }).fill(`${who} Visitor`);
  await item.getByLabel('Email', { exact: true }).fill(`${who}-${RUN}@example.test`);
}

for (const scripts of [false, true]) {
  test(`the last place of a class raced with scripts ${scripts ? 'on' : 'off'} at 375 px: held for the racer paying, the other refused and waiting, then claiming it through payment`, async ({
    browser,
  }) => {
    test.slow();
    const mode = scripts ? 'script' : 'plain';
    const ann = await phone(browser, scripts);
    const ben = await phone(browser, scripts);
    const which = await nearlyFullClass(ann);
    const price = (await itemOf(ann, which).locator('input[name="price"]').inputValue())!;
    // Every place but one held by people paying.
    for (let i = 1; i < which.left; i++) {
      await holdPlace(which, `filler${i}.${mode}.${RUN}@example.test`, price);
    }
    // Both see the last place and fill in the form.
    for (const page of [ann, ben]) {
      await page.goto('/classes');
      await expect(itemOf(page, which).locator('[data-places-left]')).toHaveAttribute(
        'data-places-left',
        '1',
      );
      await fillIn(page, which, `${page === ann ? 'ann' : 'ben'}-${mode}`);
    }
    // The plain form has no time trap; a page with scripts is as slow as a person anyway.
    if (scripts) {
      for (const page of [ann, ben]) await page.waitForFunction(() => performance.now() > 3_500);
    }
    // Ann books first and is sent to pay: her place is held while she does.
    await itemOf(ann, which).getByRole('button', { name: 'Book my place' }).click();
    const checkout = await checkoutOf(ann);
    expect(stripe.session(checkout).amount_total).toBe(Math.round(Number(price) * 100));

    // Ben, a moment later, is refused: the class is full while Ann pays, and its waitlist open.
    await itemOf(ben, which).getByRole('button', { name: 'Book my place' }).click();
    await expect(
      ben.getByText(
        'This class has just filled up, so nothing was booked. You can join its waitlist instead.',
      ),
    ).toBeVisible();
    // Ben was never sent to pay; he joins the waitlist instead.
    expect(ben.url().startsWith(PAY)).toBe(true);
    await ben.goto('/classes');
    const item = itemOf(ben, which);
    await item.locator('summary', { hasText: 'Join the waitlist' }).click();
    await item.getByLabel('Name', { exact: true }).fill(`ben-${mode} Visitor`);
    await item.getByLabel('Email', { exact: true }).fill(`ben-${mode}-${RUN}@example.test`);
    if (scripts) await ben.waitForFunction(() => performance.now() > 3_500);
    await item.getByRole('button', { name: 'Join the waitlist' }).click();
    await expect(ben).toHaveURL(/\/classes\/waiting/);

    // Back from Stripe before its event, Ann's place waits for it; then she pays.
    await ann.goto(successPath(checkout));
    await expect(
      ann.getByText(/paid online: waiting for Stripe to confirm the payment/),
    ).toBeVisible();
    await expect(
      ann.getByText(/Waiting for your payment\. This place is held for you until/),
    ).toBeVisible();
    await expect(ann.getByText('Cancel my place…')).toHaveCount(0);
    await look(ann, `class-held-${mode}`);
    expect(await deliver(stripe.complete(checkout))).toMatchObject({ outcome: 'paid' });
    await ann.goto(successPath(checkout));
    await expect(ann.getByText('Paid', { exact: true })).toBeVisible();
    await look(ann, `class-paid-${mode}`);
    const annEmail = `ann-${mode}-${RUN}@example.test`;
    const mail = await mailWhere(
      (m) => m.envelope.to.includes(annEmail) && /^Your place/.test(m.subject ?? ''),
    );
    expect(mail.text).toContain(`Paid: ${dollars(Math.round(Number(price) * 100))}`);

    // Ann cancels within the policy: refunded in full, once.
    await ann.getByText('Cancel my place…').click();
    await ann.getByRole('button', { name: 'Yes, cancel my place' }).click();
    await expect(ann.getByRole('heading', { level: 1 })).toHaveText('Your place is cancelled');
    const cancel = await mailWhere(
      (m) => m.envelope.to.includes(annEmail) && (m.subject ?? '').startsWith('Cancelled:'),
    );
    expect(cancel.text).toContain('is refunded in full');

    // Her place is offered to Ben: his claim link shows it, and claiming goes straight to payment.
    const benEmail = `ben-${mode}-${RUN}@example.test`;
    const offer = await mailWhere(
      (m) => m.envelope.to.includes(benEmail) && /^A place is free/.test(m.subject ?? ''),
    );
    const claim = new URL(
      /https?:\/\/\S+\/classes\/claim\?token=[\w-]+/.exec(offer.text ?? '')![0],
    );
    await ben.goto(claim.pathname + claim.search);
    await look(ben, `class-claim-${mode}`);
    await ben.getByRole('button', { name: 'Claim and pay' }).click();
    const claimed = await checkoutOf(ben);
    expect(await deliver(stripe.complete(claimed))).toMatchObject({ outcome: 'paid' });
    await ben.goto(successPath(claimed));
    await expect(ben.getByText('Paid', { exact: true })).toBeVisible();
    // And cancelled, refunded: the class as it was.
    await ben.getByText('Cancel my place…').click();
    await ben.getByRole('button', { name: 'Yes, cancel my place' }).click();
    await expect(ben.getByRole('heading', { level: 1 })).toHaveText('Your place is cancelled');
    await ann.context().close();
    await ben.context().close();
  });
}

for (const [scripts, skip] of [
  [true, 2],
  [false, 3],
] as const) {
  test(`a double click on the booking button${scripts ? '' : ', and the form sent again,'} with scripts ${scripts ? 'on' : 'off'} at 375 px open one checkout, and paying it confirms the session`, async ({
    browser,
  }) => {
    test.slow();
    const page = await phone(browser, scripts);
    const email = `twice.${scripts ? 'script' : 'plain'}.${RUN}@example.test`;
    await page.goto('/book/private');
    const slot = await freeTime(page, skip);
    await choose(page, slot);
    await page.getByRole('textbox', { name: 'Name' }).fill('Ada Twice');
    await page.getByRole('textbox', { name: 'Email' }).fill(email);
    if (scripts) await page.waitForFunction(() => performance.now() > 3_500);
    const creates = () =>
      stripe.requests.filter((r) => r.method === 'POST' && r.path === '/v1/checkout/sessions');
    const before = creates().length;
    const posts: { url: string; body: string }[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/api/book-session')) {
        posts.push({ url: request.url(), body: request.postData() ?? '' });
      }
    });
    await page.getByRole('button', { name: 'Book this time' }).dblclick();
    const checkout = await checkoutOf(page);
    // Chromium sends a form once however fast it is pressed, and the island sends it once.
    expect(posts).toHaveLength(1);
    if (!scripts) {
      // The same form sent again, as a second press that reaches the site does (another
      // browser, a network that repeats the request): the same checkout.
      const again = await page.request.post(posts[0]!.url, {
        headers: { origin: PAY, 'content-type': 'application/x-www-form-urlencoded' },
        data: posts[0]!.body,
        maxRedirects: 0,
      });
      expect(again.status()).toBe(303);
      expect(again.headers()['location']).toBe(`${STRIPE}/pay/${checkout}`);
    }
    // One checkout at Stripe for the one booking, whatever reached the site twice.
    const opened = new Set(
      creates()
        .slice(before)
        .map((r) => r.idempotencyKey),
    );
    expect(opened.size).toBe(1);
    const sessions = stripe.sessions().filter((s) => s.customer_email === email);
    expect(sessions.map((s) => s.id)).toEqual([checkout]);

    // Paid on it: confirmed, and its page says so.
    expect(await deliver(stripe.complete(checkout))).toMatchObject({ outcome: 'paid' });
    await page.goto(successPath(checkout));
    await expect(page.getByText(/^Paid: \$\d+/)).toBeVisible();
    await look(page, `session-twice-${scripts ? 'script' : 'plain'}`);
    // Cancelled within the policy, refunded: the time free again for the next run.
    await page.getByRole('button', { name: 'Cancel my session' }).click();
    await expect(page.getByRole('status')).toHaveText(/Your session is cancelled/);
    await page.context().close();
  });
}
