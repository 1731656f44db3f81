/**
 * The HTTP layer's transport for upload sends in Node (upload chunks), on `node:http(s)`
 * instead of fetch. Node-only: reached through `@app/backend-sdk/node`, which the rest of the
 * SDK imports on demand in Node only, so browser bundles never contain it.
 *
 * Why not fetch: undici copies a byte-array body, costs more CPU and JS heap per request, and
 * can only stream a body it does not own by taking a new buffer per piece (a reused one could
 * still be in its socket queue). Here a body is written as it is, and a streamed body's
 * pieces are written one at a time, each write awaited until the socket has taken its bytes,
 * so the streamed body may reuse its buffers.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { StreamedBody } from './index';

/** What {@link nodeFetch} sends. */
export interface NodeRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: Uint8Array | StreamedBody | null;
  signal?: AbortSignal | null;
}

const isStreamed = (body: unknown): body is StreamedBody =>
  typeof (body as StreamedBody | null)?.writeTo === 'function';

/** Statuses whose response has no body (a `Response` refuses one). */
const NO_BODY = [204, 205, 304];

/**
 * Sends one request; resolves with the whole response (its body read: these are short
 * protocol answers) or rejects on a network failure, or with the signal's reason when it
 * aborts (a `TimeoutError` for `AbortSignal.timeout`).
 */
export function nodeFetch(url: string, init: NodeRequestInit = {}): Promise<Response> {
  const { body, signal } = init;
  const method = init.method ?? 'GET';
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const headers = { ...init.headers };
    if (body) headers['Content-Length'] = String(body.length);
    const req = (url.startsWith('https:') ? httpsRequest : httpRequest)(url, { method, headers });
    const abort = () => req.destroy(signal?.reason);
    signal?.addEventListener('abort', abort);
    const fail = (error: unknown) => {
      signal?.removeEventListener('abort', abort);
      reject(signal?.aborted ? signal.reason : error);
    };
    req.on('error', fail);
    req.on('response', (res: IncomingMessage) => {
      const pieces: Buffer[] = [];
      res.on('data', (piece: Buffer) => pieces.push(piece));
      res.on('error', fail);
      res.on('end', () => {
        signal?.removeEventListener('abort', abort);
        const status = res.statusCode ?? 0;
        const headers = new Headers();
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          headers.append(res.rawHeaders[i] as string, res.rawHeaders[i + 1] as string);
        }
        try {
          resolve(
            new Response(
              NO_BODY.includes(status) || method === 'HEAD' ? null : Buffer.concat(pieces),
              {
                status,
                statusText: res.statusMessage ?? '',
                headers,
              },
            ),
          );
        } catch (error) {
          reject(error);
        }
      });
    });
    if (!isStreamed(body)) {
      req.end(body ?? undefined);
      return;
    }
    // A write settles when the socket took the piece, or when the request closed (cut, aborted
    // or answered early), so the body never waits for a callback that will not come.
    const waiting = new Set<(error: Error) => void>();
    let closed: Error | undefined;
    req.on('close', () => {
      closed = new Error('The request closed before its body was sent');
      for (const failed of waiting) failed(closed);
    });
    const write = (piece: Uint8Array) =>
      new Promise<void>((done, failed) => {
        if (closed) return failed(closed);
        waiting.add(failed);
        req.write(piece, (error) => {
          waiting.delete(failed);
          if (error) failed(error);
          else done();
        });
      });
    body.writeTo(write).then(
      () => req.end(),
      (error: unknown) => req.destroy(error as Error),
    );
  });
}

/**
 * A direct body as another fetch takes it, in Node: a byte array as a one-piece stream (fetch
 * copies byte arrays but sends a stream's pieces as they are), a streamed body read whole.
 */
export async function forFetch(
  body: Uint8Array | Blob | StreamedBody | null | undefined,
): Promise<BodyInit | null | undefined> {
  if (body instanceof Blob) return body;
  const bytes = isStreamed(body) ? await body.bytes() : body;
  return bytes
    ? (ReadableStream as unknown as { from(x: unknown[]): ReadableStream }).from([bytes])
    : bytes;
}
