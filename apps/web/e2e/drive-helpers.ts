/**
 * What many browser tests do on the Files screen, as a user does it: read the list's names,
 * make a folder, and wait for the service worker to control the page.
 */
import type { Page } from 'playwright-core';
import { rowOf } from './upload-helpers';

/** The names of the list's rows (folders first, then files), in the order shown. */
export const namesIn = (page: Page) =>
  page
    .locator('.rows li[data-name]')
    .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-name')));

/** Makes a folder here with New folder, and waits for its row. */
export async function newFolder(page: Page, name: string): Promise<void> {
  await page.getByRole('button', { name: 'New folder' }).click();
  const dialog = page.getByRole('dialog', { name: 'New folder' });
  await dialog.getByLabel('Folder name').fill(name);
  await dialog.getByRole('button', { name: 'Create' }).click();
  await dialog.waitFor({ state: 'detached' });
  await rowOf(page, name).waitFor();
}

/**
 * Waits until the app-wide service worker controls the page (it registers after load; a page
 * loaded before it took over is reloaded); returns the worker's script URL.
 */
export async function controlled(page: Page): Promise<string> {
  await page.evaluate(() => navigator.serviceWorker.ready);
  if (!(await page.evaluate(() => Boolean(navigator.serviceWorker.controller)))) {
    await page.reload();
    await page.getByRole('toolbar', { name: 'Folder actions' }).waitFor();
  }
  return page.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? '');
}
