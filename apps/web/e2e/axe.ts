import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

const axeScript = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** One axe-core violation, in a form a failing assertion prints readably. */
export interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * Runs axe-core (WCAG 2.x A and AA rules, and axe's best practices) on the page as it is now —
 * or on the part matched by `scope` — and returns the violations.
 */
export async function axeViolations(page: Page, scope?: string): Promise<Violation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: axeScript });
  return page.evaluate(async (selector) => {
    const axe = (window as unknown as { axe: { run: (...args: unknown[]) => Promise<unknown> } })
      .axe;
    const context = selector ? { include: [selector] } : document;
    const result = (await axe.run(context, { resultTypes: ['violations'] })) as {
      violations: Array<{
        id: string;
        impact: string | null;
        help: string;
        nodes: Array<{ target: unknown[]; failureSummary?: string }>;
      }>;
    };
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => `${n.target.join(' ')} — ${n.failureSummary ?? ''}`),
    }));
  }, scope ?? null);
}

/** Asserts that axe-core finds no violation on the page (or in `scope`); `what` names it. */
export async function expectAccessible(page: Page, what: string, scope?: string): Promise<void> {
  expect(await axeViolations(page, scope), `accessibility of ${what}`).toEqual([]);
}
