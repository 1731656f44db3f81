/**
 * What the browser tests of uploads share: the upload panel's rows and their progress, the
 * file list's rows, this browser's upload records, and CDP helpers that slow uploads down and
 * drop files from the disk.
 */
import type { CDPSession, Page } from 'playwright-core';

export const tray = (page: Page) => page.getByRole('region', { name: 'Uploads' });
export const upload = (page: Page, name: string) =>
  tray(page).locator('li.upload').filter({ hasText: name });
export const percentOf = async (page: Page, name: string) =>
  Number.parseInt((await upload(page, name).locator('.pct').textContent()) ?? '0', 10);
export const rowOf = (page: Page, name: string) => page.locator(`.rows li[data-name="${name}"]`);
export const recordsIn = (page: Page) =>
  page.evaluate(
    () =>
      new Promise<string[]>((resolve) => {
        const open = indexedDB.open('drive-uploads', 1);
        open.onupgradeneeded = () =>
          open.result.createObjectStore('uploads', { keyPath: 'fileId' });
        open.onsuccess = () => {
          const get = open.result.transaction('uploads').objectStore('uploads').getAll();
          get.onsuccess = () => {
            resolve((get.result as { name: string }[]).map((r) => r.name));
            open.result.close();
          };
        };
      }),
  );

/** Slows uploads down in the page of `cdp` (Chromium network emulation); -1: no limit. */
export async function throttle(cdp: CDPSession, bytesPerSecond: number) {
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: bytesPerSecond,
  });
}

/** Drags files or folders from the disk onto the page, as from the desktop (real handles). */
export async function drop(cdp: CDPSession, paths: string[]) {
  const data = { items: [], files: paths, dragOperationsMask: 1 };
  for (const type of ['dragEnter', 'dragOver', 'drop'] as const) {
    await cdp.send('Input.dispatchDragEvent', { type, x: 200, y: 300, data } as never);
  }
}

/** The PATCH offsets the page sends from now on. */
export function patchOffsets(page: Page): number[] {
  const offsets: number[] = [];
  page.on('request', (r) => {
    if (r.method() === 'PATCH' && r.url().includes('/upload/resumable')) {
      offsets.push(Number(r.headers()['upload-offset']));
    }
  });
  return offsets;
}
