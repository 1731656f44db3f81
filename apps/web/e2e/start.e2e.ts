/**
 * The README's run command on other ports: `pnpm start` (through turbo) with PORT and
 * BACKEND_PORT, as a second checkout beside the first would run it. The page it serves must
 * talk to the backend on the port given, and the demo account signs in.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './chromium';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** A port free right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('pnpm start on other ports', () => {
  let child: ChildProcess;
  let output = '';
  let dataDir: string;
  let browser: Browser;
  let webPort: number;
  let backendPort: number;

  beforeAll(async () => {
    webPort = await freePort();
    backendPort = await freePort();
    dataDir = await mkdtemp(join(tmpdir(), 'drive-start-'));
    child = spawn('pnpm', ['start'], {
      cwd: root,
      detached: true,
      env: {
        ...process.env,
        PORT: String(webPort),
        BACKEND_PORT: String(backendPort),
        DRIVE_DATA_DIR: dataDir,
        TURBO_TELEMETRY_DISABLED: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const ready = `Drive is running: http://127.0.0.1:${webPort}`;
    const deadline = Date.now() + 110_000;
    while (!output.includes(ready)) {
      if (child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`pnpm start did not come up (exit ${child.exitCode}):\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    // Ctrl-C for the whole process group (turbo and the start script), as in a terminal.
    const signal = (name: NodeJS.Signals) => {
      try {
        if (child?.pid) process.kill(-child.pid, name);
      } catch {}
    };
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      signal('SIGINT');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
    }
    signal('SIGKILL');
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('serves the page on PORT, which signs in through the backend on BACKEND_PORT', async () => {
    expect(output).toContain(`Backend:       http://127.0.0.1:${backendPort}`);
    const page = await browser.newPage();
    const hosts = new Set<string>();
    page.on('request', (request) => hosts.add(new URL(request.url()).host));
    await page.goto(`http://127.0.0.1:${webPort}/sign-in`);
    await page.getByLabel('Email').fill('demo@example.com');
    await page.getByLabel('Password').fill('drive-demo-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('toolbar', { name: 'Folder actions' }).waitFor();
    // The demo account's folders, from the seed of the backend folder.
    await page.locator('.rows li[data-name="Documents"]').waitFor({ timeout: 15_000 });
    expect([...hosts].sort()).toEqual([`127.0.0.1:${backendPort}`, `127.0.0.1:${webPort}`].sort());
  });

  it('offers GitHub and Google, emulated: their sign-in step is a page of the local backend', async () => {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${webPort}/sign-in`);
    await page.getByRole('button', { name: 'Continue with Google' }).waitFor();
    await page.getByRole('button', { name: 'Continue with GitHub' }).click();
    await page.waitForURL((url) => url.pathname === '/auth/v1/emulator');
    expect(new URL(page.url()).host).toBe(`127.0.0.1:${backendPort}`);
    await page.getByRole('heading', { name: 'Sign in with GitHub' }).waitFor();
  });
});
