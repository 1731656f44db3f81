import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accessibilityViolations,
  type ConsoleStack,
  startConsoleStack,
  watchErrors,
} from './stack';

let stack: ConsoleStack;
let errors: string[];

beforeAll(async () => {
  stack = await startConsoleStack({
    auth: {
      rateLimits: false,
      siteUrl: 'http://127.0.0.1:9/app',
      sms: { enabled: true, autoconfirm: false },
    },
  });
  errors = watchErrors(stack.page);
});
afterAll(() => stack?.stop());

const sendMagicLink = (email: string) =>
  fetch(`${stack.server.url}/auth/v1/otp`, {
    method: 'POST',
    headers: { apikey: stack.server.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ email }),
  });

describe('console: mail', () => {
  it('opens from the banner outbox link and shows the mail rendered, with working links', async () => {
    await sendMagicLink('reader@example.com');
    const page = stack.page;
    await page.goto(stack.server.mailUrl ?? '');
    await page.getByRole('heading', { name: 'Mail', exact: true }).waitFor();
    await page.getByRole('heading', { name: 'Your Magic Link' }).waitFor();
    expect(await page.getByText('reader@example.com').count()).toBeGreaterThan(0);
    const frame = page.frameLocator('iframe[title^="Mail:"]');
    await frame.locator('a').first().waitFor();

    // The link verifies the one-time token and lands on the site with a session.
    await page
      .context()
      .route('http://127.0.0.1:9/**', (route) =>
        route.fulfill({ contentType: 'text/html', body: '<title>app</title>' }),
      );
    const link = page.getByRole('link', { name: /\/auth\/v1\/verify\?/ }).first();
    const [popup] = await Promise.all([page.context().waitForEvent('page'), link.click()]);
    await popup.waitForURL(/127\.0\.0\.1:9\/app/);
    expect(new URL(popup.url()).hash).toMatch(/access_token=/);
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('follows new mail live and empties the outbox', async () => {
    const page = stack.page;
    await sendMagicLink('second@example.com');
    await page.getByRole('button', { name: /second@example.com/ }).waitFor();
    await page.getByRole('button', { name: 'Empty the outbox' }).click();
    await page.getByText('No mail yet.').waitFor();
  });

  it('shows text messages (phone sign-in codes) in the SMS outbox', async () => {
    const page = stack.page;
    const sent = await fetch(`${stack.server.url}/auth/v1/signup`, {
      method: 'POST',
      headers: { apikey: stack.server.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ phone: '+15550001234', password: 'phone-password' }),
    });
    expect(sent.status, await sent.text()).toBe(200);
    await page
      .getByRole('navigation', { name: 'Outboxes' })
      .getByRole('link', { name: 'SMS' })
      .click();
    await page.getByRole('heading', { name: 'SMS', exact: true }).waitFor();
    const row = page.getByRole('row', { name: /\+15550001234/ });
    await row.waitFor();
    const code = await row.locator('code').textContent();
    expect(code).toMatch(/^\d{6}$/);
    expect(await row.textContent()).toContain(code);
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('leaves the raw outbox API behind its key check, even for the console page', async () => {
    const page = stack.page;
    const status = await page.evaluate(async () => [
      (await fetch('/_dev/mail')).status,
      (await fetch('/_dev/sms')).status,
    ]);
    expect(status).toEqual([401, 401]);
    expect(errors).toEqual([]);
  });
});
