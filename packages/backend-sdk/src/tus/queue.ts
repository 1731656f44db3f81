import type { ResumableUpload } from './upload';

/**
 * Runs many uploads with at most `concurrency` at a time, in the order they were added.
 * Give it uploads created with `autoStart: false`.
 *
 * @example
 * const queue = new UploadQueue({ concurrency: 3 });
 * for (const file of files) {
 *   queue.add(bucket.uploadResumable(file.name, file, { autoStart: false }));
 * }
 * await queue.idle();
 */
export class UploadQueue {
  readonly #waiting: ResumableUpload[] = [];
  #active = 0;
  readonly #drained: Array<() => void> = [];
  readonly concurrency: number;

  constructor(options: { concurrency?: number } = {}) {
    this.concurrency = Math.max(1, options.concurrency ?? 3);
  }

  /** Queues an upload; returns its `result`. */
  add(upload: ResumableUpload): ResumableUpload['result'] {
    this.#waiting.push(upload);
    this.#next();
    return upload.result;
  }

  /** Uploads queued and not yet started. */
  get pending(): number {
    return this.#waiting.length;
  }

  /** Uploads running now. */
  get running(): number {
    return this.#active;
  }

  /** Resolves when nothing is queued or running. */
  idle(): Promise<void> {
    return this.#active + this.#waiting.length === 0
      ? Promise.resolve()
      : new Promise((resolve) => this.#drained.push(resolve));
  }

  #next(): void {
    while (this.#active < this.concurrency) {
      const upload = this.#waiting.shift();
      if (!upload) break;
      this.#active++;
      void upload.start().then(() => {
        this.#active--;
        this.#next();
        if (this.#active + this.#waiting.length === 0) {
          for (const resolve of this.#drained.splice(0)) resolve();
        }
      });
    }
  }
}
