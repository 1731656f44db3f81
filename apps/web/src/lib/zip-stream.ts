/**
 * A zip of several stored files as a stream (client-zip): each file is fetched from its
 * signed URL only when the zip reaches it, so neither the page nor the service worker ever
 * holds more than a chunk. Used by the download service worker (`zip-sw.ts`) and by the
 * in-memory fallback (`zip.ts`).
 */
import { downloadZip } from 'client-zip';

/** One entry of the zip: a folder (`url` absent, name ends in "/") or a file. */
export interface ZipItem {
  name: string;
  lastModified: string;
  size: number;
  url?: string;
}

/** The `Content-Disposition` of a download named `name` (any characters, RFC 6266). */
export function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

async function* inputs(items: ZipItem[]) {
  for (const item of items) {
    const lastModified = new Date(item.lastModified);
    if (item.url === undefined) {
      yield { name: item.name, lastModified };
      continue;
    }
    const res = await fetch(item.url);
    if (!res.ok) throw new Error(`Could not read “${item.name}” (${res.status})`);
    yield { name: item.name, lastModified, input: res, size: item.size };
  }
}

/** The zip of `items`, as a streamed Response with its exact length, named `name`. */
export function zipResponse(items: ZipItem[], name: string): Response {
  const metadata = items.map((i) =>
    i.url === undefined ? { name: i.name } : { name: i.name, size: i.size },
  );
  const zip = downloadZip(inputs(items), { metadata: metadata as never });
  const headers = new Headers(zip.headers);
  headers.set('content-type', 'application/zip');
  headers.set('content-disposition', attachment(name));
  return new Response(zip.body, { status: 200, headers });
}
