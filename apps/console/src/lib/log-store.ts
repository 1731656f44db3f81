import type { LogEntry } from '@app/backend-server/console-api';

/**
 * The live log in the page: entries from the server's stream, the newest `capacity` kept,
 * listeners told at most once per animation frame however many entries arrive (so 500
 * requests a second cost one render per frame, not 500).
 */
export class LogStore {
  entries: LogEntry[] = [];
  version = 0;
  lastSeq = 0;
  #listeners = new Set<() => void>();
  #scheduled = false;

  constructor(
    readonly capacity: number,
    private readonly schedule: (fn: () => void) => void = (fn) => requestAnimationFrame(fn),
  ) {}

  add(batch: readonly LogEntry[]): void {
    const fresh = batch.filter((e) => e.seq > this.lastSeq);
    if (fresh.length === 0) return;
    this.lastSeq = fresh[fresh.length - 1]?.seq ?? this.lastSeq;
    const all = this.entries.concat(fresh);
    this.entries = all.length > this.capacity ? all.slice(all.length - this.capacity) : all;
    this.#notify();
  }

  clear(): void {
    this.entries = [];
    this.#notify();
  }

  subscribe = (listener: () => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  getVersion = () => this.version;

  #notify(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    this.schedule(() => {
      this.#scheduled = false;
      this.version += 1;
      for (const listener of this.#listeners) listener();
    });
  }
}

/** Splits a growing NDJSON text into complete lines; returns the rest. */
export function takeLines(buffer: string): { lines: string[]; rest: string } {
  const parts = buffer.split('\n');
  const rest = parts.pop() ?? '';
  return { lines: parts.filter((l) => l.trim() !== ''), rest };
}

export interface LogFilter {
  kind: string;
  method: string;
  status: string;
  text: string;
}

/** Whether an entry passes the filter (status is a class like `4xx`). */
export function matches(e: LogEntry, f: LogFilter): boolean {
  if (f.kind && e.kind !== f.kind) return false;
  if (f.method && e.method !== f.method) return false;
  if (f.status && (e.status === undefined || `${Math.floor(e.status / 100)}xx` !== f.status))
    return false;
  if (f.text) {
    const t = f.text.toLowerCase();
    const hay = `${e.path ?? ''} ${e.message ?? ''} ${e.source ?? ''} ${e.user ?? ''} ${e.role ?? ''}`;
    if (!hay.toLowerCase().includes(t)) return false;
  }
  return true;
}
