/**
 * Downloads several items as one zip, streamed. The zip is built in the browser with
 * client-zip from signed URLs of the stored files (no server work, works the same against
 * the hosted backend): in a service worker when the browser has one for us, so the
 * download streams straight to disk; else (no service worker: an insecure origin, some
 * private modes) in the page, kept in memory until it is saved.
 */
import { t } from '../i18n';
import { BUCKET } from './api';
import type { DriveClient } from './client-types';
import { type DownloadEntry, downloadEntries, type Ids } from './views-api';
import type { ZipItem } from './zip-stream';
import workerUrl from './zip-sw.ts?worker&url';

const SIGN_BATCH = 500;
const URL_SECONDS = 3600;

async function items(client: DriveClient, ids: Ids): Promise<ZipItem[]> {
  const listed = await downloadEntries(client, ids);
  if (listed.error) throw listed.error;
  const entries = (listed.data ?? []) as DownloadEntry[];
  const paths = entries.flatMap((e) => (e.kind === 'file' && e.object_path ? [e.object_path] : []));
  const urls = new Map<string, string>();
  for (let i = 0; i < paths.length; i += SIGN_BATCH) {
    const signed = await client.storage
      .from(BUCKET)
      .createSignedUrls(paths.slice(i, i + SIGN_BATCH), URL_SECONDS);
    if (signed.error) throw signed.error;
    for (const s of signed.data ?? []) if (s.path && s.signedUrl) urls.set(s.path, s.signedUrl);
  }
  return entries.map((e) => {
    const item: ZipItem = { name: e.path, lastModified: e.updated_at, size: Number(e.size) };
    if (e.kind === 'file') {
      const url = e.object_path ? urls.get(e.object_path) : undefined;
      if (!url) throw Object.assign(new Error(`No URL for ${e.path}`), { status: 404 });
      item.url = url;
    }
    return item;
  });
}

let registration: Promise<ServiceWorker | null> | null = null;

/** Our service worker, active; null where there is none. */
function worker(): Promise<ServiceWorker | null> {
  registration ??= (async () => {
    if (!('serviceWorker' in navigator) || !window.isSecureContext) return null;
    try {
      const url = new URL(workerUrl, window.location.href);
      const reg = await navigator.serviceWorker.register(url, {
        scope: new URL('./', url).pathname,
      });
      const sw = reg.active ?? reg.waiting ?? reg.installing;
      if (!sw) return null;
      if (sw.state !== 'activated') {
        await new Promise<void>((resolve, reject) => {
          sw.addEventListener('statechange', () => {
            if (sw.state === 'activated') resolve();
            if (sw.state === 'redundant') reject(new Error('service worker redundant'));
          });
        });
      }
      return sw;
    } catch (error) {
      console.warn('Downloads fall back to memory: no service worker.', error);
      return null;
    }
  })();
  return registration;
}

function post(sw: ServiceWorker, message: unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    const channel = new MessageChannel();
    const timer = setTimeout(() => reject(new Error('service worker did not answer')), 5000);
    channel.port1.onmessage = () => {
      clearTimeout(timer);
      resolve();
    };
    sw.postMessage(message, [channel.port2]);
  });
}

/** Starts a browser download from a URL (a hidden frame: the page stays where it is). */
function startDownload(url: string): void {
  const frame = document.createElement('iframe');
  frame.hidden = true;
  frame.title = t('cmd.download');
  frame.src = url;
  document.body.append(frame);
  setTimeout(() => frame.remove(), 60_000);
}

/**
 * Downloads the files and folders of `ids` as `name` (a zip). Resolves once the download has
 * started (service worker) or been handed to the browser (fallback); rejects with the
 * backend's error.
 */
export async function downloadZip(client: DriveClient, ids: Ids, name: string): Promise<void> {
  await saveZip(await items(client, ids), name);
}

/**
 * Downloads the zip of `list` (entries with signed URLs, e.g. a link's folder) as `name`:
 * streamed by the service worker, else built in memory.
 */
export async function saveZip(list: ZipItem[], name: string): Promise<void> {
  const sw = await worker();
  if (sw) {
    const id = crypto.randomUUID();
    await post(sw, { type: 'zip', id, name, items: list, expired: t('zip.expired') });
    startDownload(new URL(`__zip/${id}`, new URL(workerUrl, window.location.href)).href);
    return;
  }
  const { zipResponse } = await import('./zip-stream');
  const blob = await zipResponse(list, name).blob();
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
}
