/**
 * The read path of the PostgreSQL database: `readBatch` over a few protocol connections of
 * our own, pipelined. A batch is its statements followed by ONE Sync, so it runs as one
 * implicit transaction (committed at the Sync, rolled back by an error) and costs the
 * server one round of messages instead of one per statement; batches of concurrent
 * requests on one connection leave in one write and come back in one read. The general
 * driver (postgres.js) still does everything else.
 */
import type { Socket } from 'node:net';
import type { QueryResult, Settled, Statement } from './types';
import {
  type ArrayTypes,
  affected,
  B,
  dataRow,
  errorFields,
  F,
  type Field,
  type Message,
  type Reader,
  rowDescription,
  skipped,
  textParams,
  WireError,
  Writer,
} from './wire';
import { type ConnectTarget, openConnection } from './wire-connect';

/** First in every batch: the transaction is read only, like the general path's BEGIN READ ONLY. */
const READ_ONLY: Statement = {
  text: "select set_config('transaction_read_only', 'on', true)",
  params: [],
};

/** How the connections show in pg_stat_activity. */
export const APPLICATION_NAME = 'backend-server reads';

/**
 * A connection whose oldest batch has waited this long (a slow query) takes no more: the
 * batches behind it would wait for it. When all are so, reads go through the pool.
 */
const STUCK_MS = 100;

/** Prepared statements kept per connection; the oldest are closed beyond this. */
const MAX_PREPARED = 500;

interface Prepared {
  name: string;
  /** Known once the server has described it; until then, uses parse it unnamed. */
  fields: Field[] | null;
}

/** What one statement of a batch expects back, and what it collected. */
interface Step {
  fields: Field[] | null;
  /** Parsed under a new name: the entry to complete when its description arrives. */
  preparing: { text: string; entry: Prepared } | null;
  rows: Record<string, unknown>[];
}

interface Batch {
  /** When it was queued (performance.now()). */
  queued: number;
  steps: Step[];
  results: Settled<QueryResult>[];
  resolve(results: Settled<QueryResult>[]): void;
  reject(error: unknown): void;
}

/** One protocol connection carrying pipelined batches. */
class PipeConnection {
  readonly #socket: Socket;
  readonly #reader: Reader;
  readonly #writer = new Writer();
  readonly #prepared = new Map<string, Prepared>();
  readonly #inflight: Batch[] = [];
  #flushing = false;
  #names = 0;
  #failed: unknown = null;

  constructor(
    open: { socket: Socket; reader: Reader },
    private readonly onLost: (conn: PipeConnection) => void,
    private readonly arrays: ArrayTypes,
  ) {
    this.#socket = open.socket;
    this.#reader = open.reader;
    this.#socket.on('data', (chunk: Buffer) => this.#receive(this.#reader.push(chunk)));
    this.#socket.on('error', (error) => this.#lose(error));
    this.#socket.on('close', () => this.#lose(new Error('database connection closed')));
  }

  get load(): number {
    return this.#inflight.length;
  }

  /** Whether the batch at the head has been waiting for more than STUCK_MS at `now`. */
  stuck(now: number): boolean {
    const head = this.#inflight[0];
    return head !== undefined && now - head.queued > STUCK_MS;
  }

  get alive(): boolean {
    return this.#failed === null;
  }

  /** Queues a batch; its messages leave with the others of this turn of the event loop. */
  run(
    statements: readonly Statement[],
    texts: (string | null)[][],
  ): Promise<Settled<QueryResult>[]> {
    const w = this.#writer;
    const steps: Step[] = [];
    statements.forEach((st, i) => {
      const values = texts[i] as (string | null)[];
      let entry = this.#prepared.get(st.text);
      let step: Step;
      if (entry?.fields) {
        // Moved to the end: the least recently used are closed first.
        this.#prepared.delete(st.text);
        this.#prepared.set(st.text, entry);
        step = { fields: entry.fields, preparing: null, rows: [] };
        this.#bind(entry.name, values);
      } else if (!entry) {
        entry = { name: `p${++this.#names}`, fields: null };
        this.#prepared.set(st.text, entry);
        this.#evict();
        w.begin(F.parse).cstr(entry.name).cstr(st.text).int16(0).end();
        w.begin(F.describe).bytes(Buffer.from('S')).cstr(entry.name).end();
        step = { fields: null, preparing: { text: st.text, entry }, rows: [] };
        this.#bind(entry.name, values);
      } else {
        // Being prepared by a batch still in flight: parse it unnamed this time.
        w.begin(F.parse).cstr('').cstr(st.text).int16(0).end();
        step = { fields: null, preparing: null, rows: [] };
        this.#bind('', values);
        w.begin(F.describe).bytes(Buffer.from('P')).cstr('').end();
      }
      w.begin(F.execute).cstr('').int32(0).end();
      steps.push(step);
    });
    w.begin(F.sync).end();
    if (!this.#flushing) {
      this.#flushing = true;
      setImmediate(() => this.#flush());
    }
    return new Promise((resolve, reject) => {
      this.#inflight.push({ queued: performance.now(), steps, results: [], resolve, reject });
    });
  }

  close(): void {
    this.#failed ??= new Error('database connection closed');
    this.#socket.end(new Writer().begin(F.terminate).end().take());
  }

  #bind(name: string, values: (string | null)[]): void {
    const w = this.#writer.begin(F.bind).cstr('').cstr(name).int16(0).int16(values.length);
    for (const v of values) w.value(v);
    w.int16(0).end();
  }

  /** Closes the least recently used statements beyond MAX_PREPARED. */
  #evict(): void {
    for (const [text, entry] of this.#prepared) {
      if (this.#prepared.size <= MAX_PREPARED) break;
      if (!entry.fields) continue;
      this.#prepared.delete(text);
      this.#writer.begin(F.close).bytes(Buffer.from('S')).cstr(entry.name).end();
    }
  }

  #flush(): void {
    this.#flushing = false;
    if (this.#writer.length && this.alive) this.#socket.write(this.#writer.take());
  }

  #receive(messages: Message[]): void {
    for (const m of messages) {
      const batch = this.#inflight[0];
      if (!batch) continue; // notices and parameter changes between batches
      const step = batch.steps[batch.results.length];
      switch (m.type) {
        case B.rowDescription:
        case B.noData: {
          const fields = m.type === B.noData ? [] : rowDescription(m.body);
          if (step && !step.fields) step.fields = fields;
          if (step?.preparing) {
            this.#prepared.delete(step.preparing.text);
            this.#prepared.set(step.preparing.text, { ...step.preparing.entry, fields });
          }
          break;
        }
        case B.dataRow:
          if (step) step.rows.push(dataRow(m.body, step.fields ?? [], this.arrays));
          break;
        case B.commandComplete:
        case B.emptyQuery:
          if (step) {
            batch.results.push({
              ok: true,
              value: {
                rows: step.rows,
                affectedRows: m.type === B.emptyQuery ? 0 : affected(m.body) || step.rows.length,
                fields: step.fields ?? [],
              },
            });
          }
          break;
        case B.error: {
          const error = new WireError(errorFields(m.body));
          if (!step) {
            // The commit at the Sync failed: no statement's work stands.
            batch.results.fill({ ok: false, error });
            break;
          }
          // The server skips the rest of the batch up to its Sync.
          if (step.preparing && !step.fields) this.#forget(step.preparing);
          batch.results.push({ ok: false, error });
          for (const rest of batch.steps.slice(batch.results.length)) {
            if (rest.preparing) this.#forget(rest.preparing);
            batch.results.push({ ok: false, error: skipped() });
          }
          break;
        }
        case B.ready:
          this.#inflight.shift();
          batch.resolve(batch.results);
          break;
      }
    }
  }

  /** A statement whose preparation never ran: its name was not created. */
  #forget(preparing: { text: string; entry: Prepared }): void {
    if (this.#prepared.get(preparing.text) === preparing.entry) {
      this.#prepared.delete(preparing.text);
    }
  }

  #lose(error: unknown): void {
    if (this.#failed !== null && this.#inflight.length === 0) return;
    this.#failed ??= error;
    for (const batch of this.#inflight.splice(0)) batch.reject(error);
    this.#socket.destroy();
    this.onLost(this);
  }
}

/** A few pipelined connections; each batch goes to the least busy one not held up. */
export class Pipeline {
  readonly #conns: PipeConnection[] = [];
  #closed = false;
  #refilling = false;

  private constructor(
    private readonly target: ConnectTarget,
    private readonly size: number,
    private readonly arrays: ArrayTypes,
  ) {}

  /**
   * Opens the first connection (rejects when it cannot), then the others in the background.
   * `arrays` names the database's array types, whose values are read into arrays.
   */
  static async open(
    target: ConnectTarget,
    size: number,
    arrays: ArrayTypes = new Map(),
  ): Promise<Pipeline> {
    const pipeline = new Pipeline(target, size, arrays);
    await pipeline.#add();
    void pipeline.#refill();
    return pipeline;
  }

  async #add(): Promise<void> {
    const open = await openConnection(this.target, APPLICATION_NAME);
    if (this.#closed) {
      open.socket.destroy();
      return;
    }
    this.#conns.push(
      new PipeConnection(
        open,
        (lost) => {
          const i = this.#conns.indexOf(lost);
          if (i >= 0) this.#conns.splice(i, 1);
          void this.#refill();
        },
        this.arrays,
      ),
    );
  }

  /**
   * Opens connections until there are `size` again; while the server refuses (restarting),
   * tries again after 0.5, 1, 2 … up to 10 s. Reads go through the pool meanwhile.
   */
  async #refill(): Promise<void> {
    if (this.#refilling) return;
    this.#refilling = true;
    let delay = this.#conns.length ? 0 : 500;
    try {
      while (!this.#closed && this.#conns.length < this.size) {
        if (delay) await new Promise((r) => setTimeout(r, delay).unref());
        try {
          await this.#add();
          delay = 0;
        } catch {
          delay = Math.min(Math.max(delay * 2, 500), 10_000);
        }
      }
    } finally {
      this.#refilling = false;
    }
  }

  /**
   * Runs the statements in one read-only implicit transaction. Resolves to each statement's
   * result or error; null when this path cannot take the batch (a parameter it does not
   * send, no live connection, all of them busy with a slow query): the caller then uses the
   * general driver.
   */
  run(statements: readonly Statement[]): Promise<Settled<QueryResult>[]> | null {
    const now = performance.now();
    let best: PipeConnection | undefined;
    for (const c of this.#conns) {
      if (c.alive && !c.stuck(now) && (!best || c.load < best.load)) best = c;
    }
    if (!best) return null;
    const all = [READ_ONLY, ...statements];
    const texts = textParams(all);
    if (!texts) return null;
    return best.run(all, texts).then((results) => results.slice(1));
  }

  close(): void {
    this.#closed = true;
    for (const c of this.#conns.splice(0)) c.close();
  }
}
