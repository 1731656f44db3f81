import { fileURLToPath } from 'node:url';
import { generateSigningKey, type RunningServer, startServer } from '@app/backend-server';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from './chromium';
import { serveStatic } from './static-server';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/** A real backend (Drive's migrations and functions), the built app, and Chromium. */
export interface Stack {
  server: RunningServer;
  site: { url: string; close(): Promise<void> };
  /** The site by the name localhost (passkeys need a domain, not an IP address). */
  namedUrl: string;
  browser: Browser;
  /**
   * A fresh browser context (its own storage: another device) pointed at this stack's backend,
   * or at `backendUrl` (e.g. a proxy standing for the device's network).
   */
  newContext(options?: { backendUrl?: string; bypassCSP?: boolean }): Promise<BrowserContext>;
  stop(): Promise<void>;
}

/** Starts the stack the browser tests run against (user tokens signed ES256, as `pnpm start`). */
export async function startStack(): Promise<Stack> {
  const site = await serveStatic(here('../dist'));
  // Passkeys need a host name: the same page at localhost (see `namedUrl`).
  const namedUrl = site.url.replace('//127.0.0.1:', '//localhost:');
  const server = await startServer({
    port: 0,
    signingKeys: [generateSigningKey('ES256')],
    migrationsDir: here('../backend/migrations'),
    functionsDir: here('../backend/functions'),
    // GitHub and Google emulated, passkeys and the OAuth server, as `pnpm start` has them
    // (apps/web/backend/config.toml).
    auth: {
      passwordMinLength: 8,
      rateLimits: false,
      emulateProviders: true,
      manualLinking: true,
      external: { github: {}, google: {} },
      passkey: { enabled: true },
      webauthn: { rpId: 'localhost', rpDisplayName: 'Drive', rpOrigins: [namedUrl] },
      oauthServer: { enabled: true, authorizationUrlPath: '/oauth/consent' },
    },
    // Sharing's mails (functions/notify) link to the built app, as `pnpm start` has them.
    functions: { env: { DRIVE_SITE_URL: site.url } },
    log: false,
  }).catch(async (error: unknown) => {
    await site.close();
    throw error;
  });
  const browser = await launchChromium();
  return {
    server,
    site,
    namedUrl,
    browser,
    async newContext(options = {}) {
      const context = await browser.newContext({
        acceptDownloads: true,
        viewport: { width: 1280, height: 800 },
        // To inject axe-core into pages with a strict CSP (the emulated provider's page).
        ...(options.bypassCSP ? { bypassCSP: true } : {}),
      });
      await context.addInitScript(
        ([url, anonKey]) => {
          (globalThis as { __DRIVE_BACKEND__?: unknown }).__DRIVE_BACKEND__ = { url, anonKey };
        },
        [options.backendUrl ?? server.url, server.anonKey] as const,
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

/** Signs a new user up through the UI; returns the credentials. */
export async function signUpNewUser(
  page: Page,
  stack: Stack,
  name = 'Ada',
): Promise<{ email: string; password: string }> {
  const email = `${name.toLowerCase()}-${Date.now()}-${Math.random().toString(36).slice(2, 7)}@example.com`;
  const password = 'correct horse battery';
  await page.goto(`${stack.site.url}/sign-up`);
  await page.getByLabel('Display name').fill(name);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('toolbar', { name: 'Folder actions' }).waitFor();
  return { email, password };
}

/** Signs in through the UI. */
export async function signIn(page: Page, stack: Stack, user: { email: string; password: string }) {
  await page.goto(`${stack.site.url}/sign-in`);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('toolbar', { name: 'Folder actions' }).waitFor();
}
