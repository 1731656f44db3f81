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
  stack = await startConsoleStack();
  errors = watchErrors(stack.page);
});
afterAll(() => stack?.stop());

describe('console: realtime', () => {
  it('shows open channels with presence, and sends a broadcast that subscribers get', async () => {
    // A client in another tab: joins `room:lobby` with presence and listens for broadcasts.
    const client = await stack.context.newPage();
    await client.goto(`${stack.server.url}/_console/`);
    await client.evaluate(
      async ([url, key]) => {
        const ws = new WebSocket(
          `${url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${key}&vsn=1.0.0`,
        );
        await new Promise((r) => {
          ws.onopen = r;
        });
        const got: unknown[] = [];
        (window as unknown as { got: unknown[] }).got = got;
        ws.onmessage = (e) => {
          const m = JSON.parse(String(e.data));
          if (m.event === 'broadcast') got.push(m.payload);
        };
        ws.send(
          JSON.stringify({
            topic: 'realtime:room:lobby',
            event: 'phx_join',
            ref: '1',
            join_ref: '1',
            payload: {
              config: { broadcast: { self: false }, presence: { key: 'ada', enabled: true } },
            },
          }),
        );
        await new Promise((r) => setTimeout(r, 200));
        ws.send(
          JSON.stringify({
            topic: 'realtime:room:lobby',
            event: 'presence',
            ref: '2',
            join_ref: '1',
            payload: { type: 'presence', event: 'track', payload: { status: 'online' } },
          }),
        );
      },
      [stack.server.url, stack.server.anonKey] as const,
    );

    const page = stack.page;
    await stack.open('realtime');
    const channels = page.getByRole('table', { name: /^Channels/ });
    const lobby = channels.getByRole('row', { name: /room:lobby/ });
    await lobby.waitFor();
    await lobby.getByText(/"ada".*"status":"online"/).waitFor();
    const connections = page.getByRole('table', { name: /^Connections/ });
    await connections.getByRole('cell', { name: 'room:lobby' }).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);

    await page.getByLabel('Channel topic').fill('room:lobby');
    await page.getByLabel('Event').fill('announce');
    await page.getByLabel('Payload (JSON)').fill('{"text": "from the console"}');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('status').getByText('Sent "announce" to room:lobby.').waitFor();
    await expect
      .poll(() => client.evaluate(() => (window as unknown as { got: unknown[] }).got))
      .toEqual([{ type: 'broadcast', event: 'announce', payload: { text: 'from the console' } }]);

    await page.getByLabel('Payload (JSON)').fill('{not json');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('alert').getByText('The payload is not valid JSON').waitFor();
    expect(errors).toEqual([]);
  });
});
