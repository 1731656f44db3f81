import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { type RunningServer, type StartServerOptions, startServer } from '@app/backend-server';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../../web/e2e/chromium';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/** A real backend-server serving the built console, and Chromium. */
export interface ConsoleStack {
  server: RunningServer;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Opens a console screen with the server's link (its secret in the fragment). */
  open(screen?: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startConsoleStack(options: StartServerOptions = {}): Promise<ConsoleStack> {
  const server = await startServer({
    port: 0,
    auth: { rateLimits: false },
    ...options,
    console: { assetsDir: here('../dist'), ...options.console },
  });
  const browser = await launchChromium();
  const context = await browser.newContext({
    acceptDownloads: true,
    viewport: { width: 1280, height: 800 },
  });
  const page = await context.newPage();
  return {
    server,
    browser,
    context,
    page,
    async open(screen = '') {
      const link = server.consoleUrl?.replace('/_console/#', `/_console/${screen}#`) ?? '';
      // A fresh document each time (the same address with a new fragment would not reload).
      await page.goto('about:blank');
      await page.goto(link);
      await page.getByRole('navigation', { name: 'Screens' }).waitFor();
    },
    async stop() {
      await browser.close().catch(() => {});
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

const axeSource = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** Runs axe-core (WCAG 2.1 A and AA rules) on the page; returns the violations, described. */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window)))
    await page.addScriptTag({ content: axeSource });
  const violations = (await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run(ctx: Document, o: unknown): Promise<{ violations: unknown[] }> };
      }
    ).axe;
    const result = await axe.run(document, {
      runOnly: {
        type: 'tag',
        values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'],
      },
    });
    return result.violations;
  })) as AxeViolation[];
  return violations.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
  );
}
