import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, signUpNewUser, startStack, watchErrors } from './stack';

/** One frame of the realtime protocol (Phoenix vsn 2.0.0): [join_ref, ref, topic, event, payload]. */
type Frame = [string | null, string | null, string, string, Record<string, unknown>];

/**
 * Opens a raw realtime socket in `page` with the signed-in user's token, as anyone could from
 * a browser console: `join(topic, config)` answers with the server's reply; every frame the
 * socket receives is kept in `window.__rt.frames`.
 */
async function openSocket(page: Page, stack: Stack): Promise<void> {
  await page.evaluate(
    async ({ url, anonKey }) => {
      const key = Object.keys(localStorage).find((k) => k.includes('auth'));
      const token: string = key ? JSON.parse(localStorage.getItem(key) ?? '{}').access_token : '';
      if (!token) throw new Error('not signed in');
      const ws = new WebSocket(
        `${url.replace(/^http/, 'ws')}/realtime/v1/websocket?apikey=${anonKey}&vsn=2.0.0`,
      );
      await new Promise((resolve, reject) => {
        ws.onopen = resolve;
        ws.onerror = reject;
      });
      const frames: unknown[] = [];
      const waiting = new Map<string, (payload: unknown) => void>();
      ws.onmessage = (event) => {
        const frame = JSON.parse(String(event.data));
        frames.push(frame);
        if (frame[3] === 'phx_reply') waiting.get(frame[1])?.(frame[4]);
      };
      let ref = 0;
      (window as unknown as { __rt: unknown }).__rt = {
        frames,
        token,
        join(topic: string, config: Record<string, unknown>) {
          ref += 1;
          const r = String(ref);
          const reply = new Promise((resolve) => waiting.set(r, resolve));
          ws.send(
            JSON.stringify([
              r,
              r,
              `realtime:${topic}`,
              'phx_join',
              { config, access_token: token },
            ]),
          );
          return reply;
        },
      };
    },
    { url: stack.server.url, anonKey: stack.server.anonKey },
  );
}

const join = (page: Page, topic: string, config: Record<string, unknown>) =>
  page.evaluate(
    ([t, c]) =>
      (
        window as unknown as {
          __rt: { join(t: string, c: unknown): Promise<Record<string, unknown>> };
        }
      ).__rt.join(t, c),
    [topic, config] as const,
  );

const framesOf = (page: Page, topic: string, event: string) =>
  page.evaluate(
    ([t, e]) =>
      (window as unknown as { __rt: { frames: Frame[] } }).__rt.frames.filter(
        (f) => f[2] === `realtime:${t}` && f[3] === e,
      ),
    [topic, event] as const,
  );

const presenceConfig = (key: string, isPrivate: boolean) => ({
  broadcast: { ack: false, self: false },
  presence: { key, enabled: true },
  postgres_changes: [],
  private: isPrivate,
});

describe('realtime: only the user reaches their devices and their changes', () => {
  let stack: Stack;
  let ada: BrowserContext;
  let adaPage: Page;
  let adaId: string;
  let bob: BrowserContext;
  let bobPage: Page;
  let bobId: string;
  let errors: string[];

  const userId = async (email: string) => {
    const { rows } = await stack.server.db.query<{ id: string }>(
      'select id from auth.users where email = $1',
      [email],
    );
    return rows[0]?.id ?? '';
  };

  beforeAll(async () => {
    stack = await startStack();
    ada = await stack.newContext();
    adaPage = await ada.newPage();
    errors = watchErrors(adaPage);
    adaId = await userId((await signUpNewUser(adaPage, stack, 'Ada')).email);
    bob = await stack.newContext();
    bobPage = await bob.newPage();
    bobId = await userId((await signUpNewUser(bobPage, stack, 'Bob')).email);
    expect(adaId).toMatch(/^[0-9a-f-]{36}$/);
    expect(bobId).toMatch(/^[0-9a-f-]{36}$/);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('counts the user’s two tabs on the private devices channel', async () => {
    const joined: Array<{ topic: string; private: unknown }> = [];
    const second = await ada.newPage();
    second.on('websocket', (ws) => {
      ws.on('framesent', ({ payload }) => {
        const frame = JSON.parse(String(payload)) as Frame;
        if (frame[3] === 'phx_join') {
          const config = frame[4].config as Record<string, unknown>;
          joined.push({ topic: frame[2], private: config.private });
        }
      });
    });
    await second.goto(`${stack.site.url}/files`);
    await expect
      .poll(() => second.locator('.presence').textContent(), { timeout: 15_000 })
      .toBe('On 2 devices');
    await expect
      .poll(() => adaPage.locator('.presence').textContent(), { timeout: 15_000 })
      .toBe('On 2 devices');
    expect(joined).toContainEqual({ topic: `realtime:devices:${adaId}`, private: true });
    await second.close();
    await expect
      .poll(() => adaPage.locator('.presence').textContent(), { timeout: 15_000 })
      .toBe('On 1 device');
  });

  it('refuses another user a private join of the devices channel, with the server’s reason', async () => {
    await openSocket(bobPage, stack);
    const refused = await join(bobPage, `devices:${adaId}`, presenceConfig('bob', true));
    expect(refused).toEqual({
      status: 'error',
      response: {
        reason: `Unauthorized: You do not have permissions to read from this Channel topic: devices:${adaId}`,
      },
    });
    // The same join of Bob's own devices channel is accepted: the refusal is about whose it is.
    const own = await join(bobPage, `devices:${bobId}`, presenceConfig('bob', true));
    expect(own).toMatchObject({ status: 'ok' });
    expect(await framesOf(bobPage, `devices:${adaId}`, 'presence_state')).toEqual([]);
  });

  it('shows none of the user’s devices to a public join of the same name', async () => {
    const reply = await join(bobPage, `devices:${adaId}`, presenceConfig('bob-public', false));
    expect(reply).toMatchObject({ status: 'ok' });
    await expect
      .poll(() => framesOf(bobPage, `devices:${adaId}`, 'presence_state'), { timeout: 15_000 })
      .toHaveLength(1);
    const [state] = await framesOf(bobPage, `devices:${adaId}`, 'presence_state');
    // Ada is signed in on one device right now, on the private channel only.
    expect(await adaPage.locator('.presence').textContent()).toBe('On 1 device');
    expect(state?.[4]).toEqual({});
  });

  it('refuses another user the live-updates topic, and tells each user only their own changes', async () => {
    const config = (isPrivate: boolean) => ({
      broadcast: { ack: false, self: false },
      presence: { key: '', enabled: false },
      postgres_changes: [],
      private: isPrivate,
    });
    const refused = await join(bobPage, `drive:${adaId}`, config(true));
    expect(refused).toEqual({
      status: 'error',
      response: {
        reason: `Unauthorized: You do not have permissions to read from this Channel topic: drive:${adaId}`,
      },
    });
    // The public channel of the same name is another room, which the database never writes to.
    expect(await join(bobPage, `drive:${adaId}`, config(false))).toMatchObject({ status: 'ok' });
    expect(await join(bobPage, `drive:${bobId}`, config(true))).toMatchObject({ status: 'ok' });

    await adaPage.getByRole('button', { name: 'New folder' }).click();
    const dialog = adaPage.getByRole('dialog', { name: 'New folder' });
    await dialog.getByLabel('Folder name').fill('Ada only');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await adaPage.locator('.rows li[data-name="Ada only"]').waitFor();

    // Bob's own change comes after Ada's on the same ordered feed: once it is there, Ada's
    // would have been too.
    await bobPage.evaluate(
      async ({ url, anonKey }) => {
        const { token } = (window as unknown as { __rt: { token: string } }).__rt;
        const res = await fetch(`${url}/rest/v1/folders`, {
          method: 'POST',
          headers: {
            apikey: anonKey,
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({ name: 'Bob only' }),
        });
        if (!res.ok) throw new Error(`insert failed: ${res.status}`);
      },
      { url: stack.server.url, anonKey: stack.server.anonKey },
    );
    await expect
      .poll(() => framesOf(bobPage, `drive:${bobId}`, 'broadcast'), { timeout: 15_000 })
      .toHaveLength(1);
    const [own] = await framesOf(bobPage, `drive:${bobId}`, 'broadcast');
    expect(own?.[4]).toMatchObject({
      type: 'broadcast',
      event: 'change',
      payload: { table: 'folders', op: 'INSERT', count: 1, parents: [null] },
    });
    expect(await framesOf(bobPage, `drive:${adaId}`, 'broadcast')).toEqual([]);
  });

  it('threw no uncaught error in the page', () => {
    expect(errors).toEqual([]);
  });
});
