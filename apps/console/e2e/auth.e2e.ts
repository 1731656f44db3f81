import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accessibilityViolations,
  type ConsoleStack,
  startConsoleStack,
  watchErrors,
} from './stack';

let stack: ConsoleStack;
let errors: string[];
const email = 'managed@example.com';

beforeAll(async () => {
  stack = await startConsoleStack({ auth: { rateLimits: false } });
  errors = watchErrors(stack.page);
});
afterAll(() => stack?.stop());

const signIn = (password: string) =>
  fetch(`${stack.server.url}/auth/v1/token?grant_type=password`, {
    method: 'POST',
    headers: { apikey: stack.server.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });

describe('console: auth', () => {
  it('creates a user and finds it by search', async () => {
    const page = stack.page;
    await stack.open('auth');
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill('first-password');
    await page.getByLabel(/^Confirmed/).uncheck();
    await page.getByRole('button', { name: 'Create user' }).click();
    await page.getByRole('status').getByText('User created.').waitFor();
    await page.getByLabel('Search users').fill('managed@');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByText('1 users').waitFor();
    expect(await page.getByRole('cell', { name: 'unconfirmed' }).count()).toBe(1);
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('confirms, bans, unbans and sets a password', async () => {
    const page = stack.page;
    await page.getByRole('button', { name: `Manage ${email}` }).click();
    expect((await signIn('first-password')).status).toBe(400);
    await page.getByRole('button', { name: 'Confirm email' }).click();
    await page.getByRole('cell', { name: 'confirmed', exact: true }).waitFor();
    expect((await signIn('first-password')).status).toBe(200);
    await page.getByRole('button', { name: 'Ban' }).click();
    await page.getByRole('cell', { name: 'banned' }).waitFor();
    expect((await signIn('first-password')).status).toBe(400);
    await page.getByRole('button', { name: 'Unban' }).click();
    await page.getByRole('cell', { name: 'confirmed', exact: true }).waitFor();
    await page.getByLabel('New password').fill('second-password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('status').getByText('Password set.').waitFor();
    expect((await signIn('second-password')).status).toBe(200);
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('lists sessions and revokes one', async () => {
    const page = stack.page;
    await stack.open('auth');
    await page.getByRole('button', { name: `Manage ${email}` }).click();
    const sessions = page.getByRole('table', { name: 'Sessions' });
    const revoke = sessions.getByRole('button', { name: 'Revoke' });
    await revoke.first().waitFor();
    const before = await revoke.count();
    const inDb = await stack.server.db.query(
      'select s.id from auth.sessions s join auth.users u on u.id = s.user_id where u.email = $1',
      [email],
    );
    expect(before).toBe(inDb.rows.length);
    await revoke.first().click();
    await expect.poll(() => revoke.count()).toBe(before - 1);
    const after = await stack.server.db.query(
      'select s.id from auth.sessions s join auth.users u on u.id = s.user_id where u.email = $1',
      [email],
    );
    expect(after.rows).toHaveLength(before - 1);
  });

  it('sends a password reset to the outbox and signs in as the user for local testing', async () => {
    const page = stack.page;
    await page.getByRole('button', { name: 'Send password reset' }).click();
    await page
      .getByRole('status')
      .getByText(/Password reset mail sent/)
      .waitFor();
    const outbox = await fetch(`${stack.server.url}/_dev/mail?to=${email}`, {
      headers: { apikey: stack.server.serviceRoleKey },
    });
    expect(((await outbox.json()) as { type: string }[])[0]?.type).toBe('recovery');

    await page.getByLabel('App address').fill('http://127.0.0.1:9/app');
    // Stands in for the app: the tab the link opens lands there with the session in its fragment.
    await page
      .context()
      .route('http://127.0.0.1:9/**', (route) =>
        route.fulfill({ contentType: 'text/html', body: '<title>app</title>' }),
      );
    const [popup] = await Promise.all([
      page.context().waitForEvent('page'),
      page.getByRole('button', { name: 'Sign in as this user' }).click(),
    ]);
    await popup.waitForURL(/127\.0\.0\.1:9\/app/);
    const fragment = new URLSearchParams(new URL(popup.url()).hash.slice(1));
    const token = fragment.get('access_token') ?? '';
    const me = await fetch(`${stack.server.url}/auth/v1/user`, {
      headers: { apikey: stack.server.anonKey, authorization: `Bearer ${token}` },
    });
    expect(((await me.json()) as { email: string }).email).toBe(email);
  });

  it('shows the settings in force and deletes the user', async () => {
    const page = stack.page;
    await page.getByText('Auth settings in force').click();
    await page.getByRole('rowheader', { name: 'passwordMinLength' }).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete user' }).click();
    await page.getByText('0 users').waitFor();
    const left = await stack.server.db.query('select 1 from auth.users where email = $1', [email]);
    expect(left.rows).toEqual([]);
    expect(errors).toEqual([]);
  });
});
