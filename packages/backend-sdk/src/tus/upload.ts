/**
 * The resumable upload controller: start, pause, resume, abort; retries with delays; resume
 * across reloads through a fingerprint store; progress events.
 */
import { sleep } from '../http/index';
import { UploadError } from './errors';
import { defaultUrlStore, fingerprint, type UrlStore } from './fingerprint';
import {
  type ChunkBody,
  chunkLength,
  createUpload,
  encodeMetadata,
  headUpload,
  patchUpload,
  terminateUpload,
} from './protocol';
import { DEFAULT_RETRY_DELAYS, isOnline, isRetryable } from './retry';
import { type ChunkSource, openSource, type UploadSource } from './source';
import {
  DEFAULT_CHUNK_SIZE,
  type ResumableUploadOptions,
  type Settled,
  type UploadState,
  type UploadTarget,
} from './upload-types';

export {
  DEFAULT_CHUNK_SIZE,
  type ParallelParts,
  type PartsJob,
  type ResumableUploadOptions,
  type UploadProgress,
  type UploadResult,
  type UploadState,
  type UploadTarget,
} from './upload-types';

const asUploadError = (e: unknown): UploadError =>
  e instanceof UploadError
    ? e
    : e instanceof RangeError
      ? new UploadError('The stream cannot rewind to the server offset', {
          code: 'stream_not_seekable',
          cause: e,
        })
      : new UploadError(String((e as Error)?.message ?? e), { code: 'internal', cause: e });

/**
 * One resumable upload. `result` settles once with `{ data, error }` (never rejects): on
 * success, on a final error, or on `abort()`. Pausing leaves it pending.
 *
 * @example
 * const upload = client.storage.from('docs').uploadResumable('a/big.mov', file, {
 *   onProgress: ({ bytes, total }) => render(bytes / (total ?? 1)),
 * });
 * pauseButton.onclick = () => upload.pause();
 * resumeButton.onclick = () => upload.resume();
 * const { data, error } = await upload.result;
 */
export class ResumableUpload {
  /** Settles with the outcome; never rejects. */
  readonly result: Promise<Settled>;
  /** The tus upload URL once created (or found in the store). */
  url: string | undefined;
  /** Bytes the server has acknowledged. */
  bytes = 0;
  state: UploadState = 'idle';
  #settle!: (value: Settled) => void;
  #source: ChunkSource | undefined;
  #key: string | undefined;
  #controller: AbortController | undefined;
  #running: Promise<void> | undefined;
  #restarted = false;
  #offline = false;
  #reading: Promise<unknown> = Promise.resolve();
  #ahead: { start: number; chunk: Promise<{ data: ChunkBody; last: boolean }> } | undefined;
  readonly #store: UrlStore | undefined;

  readonly #target: UploadTarget;
  readonly #input: UploadSource;
  readonly #options: ResumableUploadOptions;

  constructor(target: UploadTarget, input: UploadSource, options: ResumableUploadOptions = {}) {
    this.#target = target;
    this.#input = input;
    this.#options = options;
    this.result = new Promise((resolve) => {
      this.#settle = resolve;
    });
    this.#store = options.urlStore === false ? undefined : (options.urlStore ?? defaultUrlStore());
    if (options.autoStart !== false) void this.start();
  }

  /** Starts, or resumes after `pause()`. Resolves with `result`. */
  start(): Promise<Settled> {
    if (this.state === 'idle' || this.state === 'paused') {
      this.state = 'uploading';
      const controller = new AbortController();
      this.#controller = controller;
      this.#listen(true);
      const previous = this.#running ?? Promise.resolve();
      this.#running = previous.then(() => this.#run(controller.signal));
    }
    return this.result;
  }

  /** Same as `start()`. */
  resume(): Promise<Settled> {
    return this.start();
  }

  /** Stops sending; `resume()` continues from the server's offset. */
  pause(): void {
    if (this.state !== 'uploading') return;
    this.state = 'paused';
    this.#controller?.abort();
  }

  /**
   * Stops for good; `result` settles with an `aborted` error. With `terminate`, the upload is
   * also deleted on the server and forgotten by the store.
   */
  async abort(options: { terminate?: boolean } = {}): Promise<void> {
    if (this.state === 'done' || this.state === 'failed' || this.state === 'aborted') return;
    this.#controller?.abort();
    this.#finish({
      data: null,
      error: new UploadError('The upload was aborted', { code: 'aborted' }),
    });
    await this.#running?.catch(() => {});
    if (options.terminate && this.url) {
      await this.#forget();
      // Parts under way are kept as `final;<url> <url> …` (see parallel.ts).
      for (const url of this.url.replace(/^final;/, '').split(' ')) {
        await terminateUpload(
          this.#target.fetch,
          url,
          this.#headers(),
          new AbortController().signal,
        );
      }
    }
  }

  #headers(): Record<string, string> {
    return this.#options.signature ? { 'x-signature': this.#options.signature } : {};
  }

  #onNetwork = (event: Event): void => {
    if (event.type === 'offline' && this.state === 'uploading') {
      this.#offline = true;
      this.pause();
    } else if (event.type === 'online' && this.#offline && this.state === 'paused') {
      this.#offline = false;
      void this.start();
    }
  };

  #listen(on: boolean): void {
    if (typeof window === 'undefined' || typeof addEventListener !== 'function') return;
    for (const type of ['online', 'offline']) {
      if (on) addEventListener(type, this.#onNetwork);
      else removeEventListener(type, this.#onNetwork);
    }
  }

  #finish(outcome: Settled): void {
    if (this.state === 'done' || this.state === 'failed' || this.state === 'aborted') return;
    const aborted = outcome.error?.code === 'aborted';
    this.state = outcome.error ? (aborted ? 'aborted' : 'failed') : 'done';
    this.#listen(false);
    this.#source?.close();
    if (outcome.error) {
      if (!aborted) this.#options.onError?.(outcome.error);
    } else this.#options.onSuccess?.(outcome.data);
    this.#settle(outcome);
  }

  async #forget(): Promise<void> {
    if (this.#key) await this.#store?.remove(this.#key);
  }

  async #run(signal: AbortSignal): Promise<void> {
    const delays = this.#options.retryDelays ?? DEFAULT_RETRY_DELAYS;
    let attempt = 0;
    let lastFailure = -1;
    try {
      if (!this.#source) {
        this.#source = await openSource(this.#input, this.#options);
        if (this.#store) {
          const { endpoint, bucket, path } = this.#target;
          this.#key = fingerprint(this.#source, endpoint, bucket, path);
          this.url = (await this.#store.get(this.#key)) ?? undefined;
        }
      }
      for (;;) {
        try {
          return await this.#attempt(this.#source, signal);
        } catch (e) {
          const error = asUploadError(e);
          if (signal.aborted) return;
          if (error.code === 'upload_gone' && !this.#restarted) {
            // Expired, terminated or stale: start over once with a new upload.
            this.#restarted = true;
            await this.#forget();
            this.url = undefined;
            this.bytes = 0;
            this.#ahead = undefined;
            continue;
          }
          if (!isRetryable(error)) throw error;
          if (this.bytes > lastFailure) attempt = 0;
          lastFailure = this.bytes;
          if (!isOnline()) {
            // Offline in a browser: wait for the `online` event instead of spending retries.
            this.#offline = true;
            this.pause();
            return;
          }
          const delay = delays[attempt];
          if (delay === undefined) throw error;
          this.#options.onRetry?.({ delay, attempt: ++attempt, error });
          // An abort (pause) ends the wait early.
          await sleep(delay, signal).catch(() => {});
          if (signal.aborted) return;
        }
      }
    } catch (e) {
      this.#finish({ data: null, error: asUploadError(e) });
    }
  }

  #read(source: ChunkSource, start: number): Promise<{ data: ChunkBody; last: boolean }> {
    const ahead = this.#ahead;
    this.#ahead = undefined;
    if (ahead?.start === start) return ahead.chunk;
    const size = this.#options.chunkSize ?? DEFAULT_CHUNK_SIZE;
    const chunk = this.#reading.then(() => source.read(start, start + size));
    this.#reading = chunk.catch(() => {});
    return chunk;
  }

  #readAhead(source: ChunkSource, start: number): void {
    const chunk = this.#read(source, start);
    chunk.catch(() => {});
    this.#ahead = { start, chunk };
  }

  /** Keeps the upload's URL in the store (resolves when written; never rejects). */
  #save(url: string): Promise<void> {
    const saving = (async () => {
      if (this.#key) await this.#store?.set(this.#key, url);
    })();
    saving.catch(() => {});
    return saving;
  }

  async #attempt(source: ChunkSource, signal: AbortSignal): Promise<void> {
    const { fetch, endpoint, bucket, path } = this.#target;
    const opts = this.#options;
    const headers = this.#headers();
    const creation = {
      ...headers,
      'Upload-Metadata': encodeMetadata({
        bucketName: bucket,
        objectName: path,
        contentType: opts.contentType ?? (source.type || 'application/octet-stream'),
        cacheControl: String(opts.cacheControl ?? 3600),
        metadata: opts.metadata ? JSON.stringify(opts.metadata) : undefined,
      }),
      ...(opts.upsert ? { 'x-upsert': 'true' } : {}),
    };
    let total = source.size;
    const started = Date.now();
    const startBytes = this.bytes;
    const progress = (chunk: number): void => {
      this.#source?.release(this.bytes);
      const seconds = (Date.now() - started) / 1000;
      const rate = seconds > 0 ? (this.bytes - startBytes) / seconds : 0;
      opts.onChunkComplete?.({ size: chunk, bytes: this.bytes, total });
      opts.onProgress?.({ bytes: this.bytes, total, rate });
    };
    let chunk: { data: ChunkBody; last: boolean } | undefined;
    let lengthSent = total !== undefined;
    let saving: Promise<void> | undefined;
    // Parts side by side (see the `parallel` option): on success, the upload is complete.
    const joined = await opts.parallel?.send({
      ...this.#target,
      upload: this,
      headers,
      creation,
      source,
      chunkSize: opts.chunkSize,
      signal,
      created: (url) => {
        saving = this.#save(url);
      },
      progress,
    });
    // Parts kept by an upload that now goes without `parallel`: it starts over, whole.
    if (!joined && this.url?.startsWith('final;')) this.url = undefined;
    if (joined) {
      // Sent: `this.url` is the final upload's, `this.bytes` the size.
    } else if (this.url) {
      const head = await headUpload(fetch, this.url, headers, signal);
      this.bytes = head.offset;
      total ??= head.length;
      lengthSent = head.length !== undefined;
    } else {
      const useChunk = opts.uploadDataDuringCreation !== false;
      chunk = useChunk ? await this.#read(source, 0) : undefined;
      if (chunk?.last) total = chunkLength(chunk.data);
      if (total === undefined && !useChunk) {
        chunk = await this.#read(source, 0);
        if (chunk.last) total = chunkLength(chunk.data);
      }
      const sendFirst = useChunk && (total === undefined || total > 0);
      if (sendFirst && chunk && !chunk.last) this.#readAhead(source, chunkLength(chunk.data));
      const created = await createUpload(
        fetch,
        endpoint,
        creation,
        signal,
        total,
        sendFirst ? chunk?.data : undefined,
      );
      this.url = created.url;
      lengthSent = total !== undefined;
      // Kept while the next chunks are sent (one round trip less before them); settled before
      // the upload finishes, so its removal on success always comes after it.
      saving = this.#save(created.url);
      this.bytes = created.offset;
      if (sendFirst && this.bytes > 0) progress(this.bytes);
      else if (chunk && !sendFirst) this.#ahead = { start: 0, chunk: Promise.resolve(chunk) };
      chunk = undefined;
    }
    const url = this.url as string;
    while (total === undefined || this.bytes < total) {
      const at = this.bytes;
      const next = await this.#read(source, at);
      if (!next.last) this.#readAhead(source, at + chunkLength(next.data));
      if (next.last) total = at + chunkLength(next.data);
      const deferred = !lengthSent && next.last ? total : undefined;
      this.bytes = await patchUpload(fetch, url, headers, signal, at, next.data, deferred);
      if (this.bytes <= at && chunkLength(next.data) > 0) {
        throw new UploadError('The server accepted no bytes', { status: 0, code: 'network_error' });
      }
      progress(this.bytes - at);
    }
    await saving;
    if (this.bytes === 0) progress(0);
    await this.#forget();
    this.#finish({
      data: { url, path, fullPath: `${bucket}/${path}`, size: this.bytes },
      error: null,
    });
  }
}
