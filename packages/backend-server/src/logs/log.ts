import type { LogEntry } from '../console/api-types';

export type { LogEntry, LogKind } from '../console/api-types';

export type NewLogEntry = Omit<LogEntry, 'seq' | 'time'> & { time?: number };

/** Entries kept in memory by default: the newest ones, older ones are dropped. */
export const DEFAULT_LOG_CAPACITY = 5000;

/**
 * The live log: a ring buffer of the newest entries and the listeners that follow it.
 * Pushing is cheap (no I/O, no formatting), so it sits on every request's path.
 */
export class LiveLog {
  readonly #entries: (LogEntry | undefined)[];
  #next = 0;
  #seq = 0;
  readonly #listeners = new Set<(entry: LogEntry) => void>();

  constructor(readonly capacity: number = DEFAULT_LOG_CAPACITY) {
    if (!(capacity >= 1)) throw new Error('log capacity must be at least 1');
    this.#entries = new Array(capacity);
  }

  /** Adds an entry; returns it with its number and time. */
  push(entry: NewLogEntry): LogEntry {
    this.#seq += 1;
    const full: LogEntry = { ...entry, seq: this.#seq, time: entry.time ?? Date.now() };
    this.#entries[this.#next] = full;
    this.#next = (this.#next + 1) % this.capacity;
    for (const listener of this.#listeners) listener(full);
    return full;
  }

  /** Number of the newest entry (0 before the first). */
  get lastSeq(): number {
    return this.#seq;
  }

  /** Kept entries newer than `afterSeq`, oldest first. */
  since(afterSeq = 0): LogEntry[] {
    const out: LogEntry[] = [];
    for (let i = 0; i < this.capacity; i += 1) {
      const entry = this.#entries[(this.#next + i) % this.capacity];
      if (entry && entry.seq > afterSeq) out.push(entry);
    }
    return out;
  }

  /** Calls `listener` with every new entry until the returned function is called. */
  follow(listener: (entry: LogEntry) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Forgets every kept entry (numbers keep increasing). */
  clear(): void {
    this.#entries.fill(undefined);
  }
}
