import { fileURLToPath } from 'node:url';
import { type RunningServer, startServer } from '@app/backend-server';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from './chromium';
import { serveStatic } from './static-server';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/** A real backend (Drive's migrations and functions), the built app, and Chromium. */
export interface Stack {
  server: RunningServer;
  site: { url: string; close(): Promise<void> };
  browser: Browser;
  /** A fresh browser context (its own storage: another device) pointed at this stack's backend. */
  newContext(): Promise<BrowserContext>;
  stop(): Promise<void>;
}

/** Starts the stack the browser tests run against. */
export async function startStack(): Promise<Stack> {
  const server = await startServer({
    port: 0,
    migrationsDir: here('../backend/migrations'),
    functionsDir: here('../backend/functions'),
    auth: { passwordMinLength: 8, rateLimits: false },
    log: false,
  });
  const site = await serveStatic(here('../dist'));
  const browser = await launchChromium();
  return {
    server,
    site,
    browser,
    async newContext() {
      const context = await browser.newContext({
        acceptDownloads: true,
        viewport: { width: 1280, height: 800 },
      });
      await context.addInitScript(
        ([url, anonKey]) => {
          (globalThis as { __DRIVE_BACKEND__?: unknown }).__DRIVE_BACKEND__ = { url, anonKey };
        },
        [server.url, server.anonKey] as const,
      );
      return context;
    },
    async stop() {
      await browser.close().catch(() => {});
      await site.close().catch(() => {});
      await server.stop();
    },
  };
}

/** Collects uncaught page errors, so a test can assert there were none. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}
