import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type HttpResponse,
  type PreviousUpload,
  Upload,
  type UploadOptions,
  type UrlStorage,
} from 'tus-js-client';

export const CHUNK = 6 * 1024 * 1024;

/** tus-js-client's URL storage kept in memory (what a browser keeps in localStorage). */
export class MemoryUrlStorage implements UrlStorage {
  private readonly entries = new Map<string, PreviousUpload & { fingerprint: string }>();
  private next = 0;
  async findAllUploads() {
    return [...this.entries.values()];
  }
  async findUploadsByFingerprint(fingerprint: string) {
    return [...this.entries.values()].filter((e) => e.fingerprint === fingerprint);
  }
  async removeUpload(key: string) {
    this.entries.delete(key);
  }
  async addUpload(fingerprint: string, upload: PreviousUpload) {
    const key = `tus-${this.next++}`;
    this.entries.set(key, { ...upload, urlStorageKey: key, fingerprint });
    return key;
  }
}

export interface TusRun {
  upload: Upload;
  /** Resolves with the last response when the upload succeeds. */
  done: Promise<HttpResponse>;
  /** Every response seen: method, status and headers of interest. */
  responses: { method: string; status: number; complete: string | undefined; offset: number }[];
}

/** Starts a tus-js-client upload; `done` settles on success or error. */
export function startTus(file: Buffer | NodeJS.ReadableStream, options: UploadOptions): TusRun {
  const responses: TusRun['responses'] = [];
  let upload!: Upload;
  const done = new Promise<HttpResponse>((resolve, reject) => {
    upload = new Upload(file as Buffer, {
      chunkSize: CHUNK,
      retryDelays: [0, 300, 1000],
      ...options,
      onAfterResponse: async (req, res) => {
        responses.push({
          method: req.getMethod(),
          status: res.getStatus(),
          complete: res.getHeader('Tus-Complete'),
          offset: Number(res.getHeader('Upload-Offset') ?? Number.NaN),
        });
        await options.onAfterResponse?.(req, res);
      },
      onSuccess: (payload) => resolve(payload.lastResponse),
      onError: reject,
    });
  });
  upload.start();
  return { upload, done, responses };
}

/** Writes `size` random bytes to a temp file, streaming; returns its path and sha256. */
export async function randomFile(size: number): Promise<{ path: string; sha256: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'storage-big-'));
  const path = join(dir, 'data.bin');
  const hash = createHash('sha256');
  const out = createWriteStream(path);
  let left = size;
  while (left > 0) {
    const chunk = randomBytes(Math.min(left, 1024 * 1024));
    hash.update(chunk);
    left -= chunk.length;
    if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) =>
    out.end((e?: Error | null) => (e ? reject(e) : resolve())),
  );
  return { path, sha256: hash.digest('hex') };
}

/** The sha256 of a file, streaming. */
export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The sha256 and size of a response body, streaming. */
export async function bodySha256(res: Response): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    hash.update(chunk);
    size += chunk.byteLength;
  }
  return { sha256: hash.digest('hex'), size };
}

/**
 * A TCP proxy in front of the server that cuts the connection (both ways) once, after
 * `cutAfter` bytes from the client have gone through it.
 */
export async function cuttingProxy(target: number, cutAfter: number) {
  let forwarded = 0;
  let cut = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('data', (data: Buffer) => {
      forwarded += data.length;
      if (!cut && forwarded > cutAfter) {
        cut = true;
        client.destroy();
        upstream.destroy();
        return;
      }
      upstream.write(data);
    });
    upstream.on('data', (data) => client.write(data));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    wasCut: () => cut,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
