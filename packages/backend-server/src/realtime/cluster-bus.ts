import { randomUUID } from 'node:crypto';
import type { Database } from '../db/index';

/** The NOTIFY channel replicas talk on. */
export const CLUSTER_CHANNEL = 'realtime_cluster';
/** NOTIFY takes payloads under 8000 bytes; larger messages are spilled to a table. */
const NOTIFY_LIMIT = 7900;
/** Spilled messages are read within moments; they are deleted after this long. */
const SPILL_RETENTION_SECONDS = 60;

/**
 * The tables of running several replicas on one PostgreSQL (idempotent; harmless on PGlite):
 * one heartbeat row per running replica, and messages too large for a notification.
 */
export const CLUSTER_SQL = /* sql */ `
create table if not exists realtime.replicas (
  id text primary key,
  started_at timestamptz not null default now(),
  seen_at timestamptz not null default now()
);
create table if not exists realtime.cluster_spill (
  id bigserial primary key,
  body text not null,
  created_at timestamptz not null default now()
);
`;

/** What a replica's heartbeat tells it. */
export interface Liveness {
  /** Other replicas whose heartbeat row is fresh. */
  live: ReadonlySet<string>;
}

export interface BusOptions {
  /** How often the heartbeat row is refreshed (default 1000 ms). */
  beatMs?: number;
  /** A heartbeat older than this counts as a dead replica (default 5000 ms). */
  deadAfterMs?: number;
}

/**
 * One replica's line to the others: messages are JSON, published with `pg_notify` in the
 * order they were sent (one statement at a time, so per-sender order holds), heard on the
 * server's one LISTEN connection; each carries the sender's id and a sequence number, so a
 * replica skips its own and nothing is taken twice. Messages over NOTIFY's limit go to
 * `realtime.cluster_spill` and the notification carries the row's id. A heartbeat row in
 * `realtime.replicas` is refreshed every `beatMs`; each beat also reads which other replicas
 * are alive.
 */
export class ClusterBus {
  readonly id = randomUUID();
  readonly beatMs: number;
  readonly deadAfterMs: number;
  private seq = 0;
  private outbox: string[] = [];
  private flushing: Promise<void> | null = null;
  private inbound: Promise<void> = Promise.resolve();
  private readonly lastSeq = new Map<string, number>();
  private unlisten: (() => Promise<void>) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private beats = 0;
  private beating: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Database,
    private readonly log: (message: string) => void,
    private readonly handlers: {
      message(from: string, body: Record<string, unknown>): void;
      liveness(state: Liveness): void;
    },
    options: BusOptions = {},
  ) {
    this.beatMs = options.beatMs ?? 1000;
    this.deadAfterMs = options.deadAfterMs ?? 5000;
  }

  /** Writes the heartbeat row, then listens. */
  async start(): Promise<void> {
    await this.beat();
    this.unlisten = await this.db.listen(CLUSTER_CHANNEL, (text) => {
      this.inbound = this.inbound
        .then(() => this.receive(text))
        .catch((error) => this.log(`realtime cluster message failed: ${String(error)}`));
    });
    this.timer = setInterval(() => {
      this.beating = this.beating.then(() => this.beat());
    }, this.beatMs);
    this.timer.unref();
  }

  /** Sends what is queued, removes the heartbeat row and stops listening. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.beating;
    await this.flushing;
    await this.db
      .query('delete from realtime.replicas where id = $1', [this.id])
      .catch((error) => this.log(`realtime cluster: heartbeat row not removed: ${String(error)}`));
    const unlisten = this.unlisten;
    this.unlisten = null;
    await unlisten?.().catch(() => {});
    await this.inbound;
  }

  /** Queues a message to every other replica. */
  send(body: Record<string, unknown>): void {
    if (!this.timer) return;
    this.outbox.push(JSON.stringify(body));
    this.flushing ??= this.flush().finally(() => {
      this.flushing = null;
    });
  }

  private async flush(): Promise<void> {
    while (this.outbox.length > 0) {
      const bodies = this.outbox;
      this.outbox = [];
      let run: string[] = [];
      const sendRun = async () => {
        if (run.length === 0) return;
        const texts = run;
        run = [];
        // One statement: the notifications go out in the array's order.
        await this.db
          .query('select pg_notify($1, m) from unnest($2::text[]) as m', [CLUSTER_CHANNEL, texts])
          .catch((error) => this.log(`realtime cluster send failed: ${String(error)}`));
      };
      for (const body of bodies) {
        this.seq += 1;
        const text = `{"r":${JSON.stringify(this.id)},"s":${this.seq},"m":${body}}`;
        if (Buffer.byteLength(text) <= NOTIFY_LIMIT) {
          run.push(text);
          continue;
        }
        await sendRun();
        await this.db
          .query(
            `with spilled as (insert into realtime.cluster_spill (body) values ($1) returning id)
             select pg_notify($2, json_build_object('r', $3::text, 's', $4::int, 'x', id::text)::text)
               from spilled`,
            [text, CLUSTER_CHANNEL, this.id, this.seq],
          )
          .catch((error) => this.log(`realtime cluster send failed: ${String(error)}`));
      }
      await sendRun();
    }
  }

  private async receive(text: string): Promise<void> {
    let envelope = parse(text);
    if (!envelope || envelope.r === this.id) return;
    if (typeof envelope.x === 'string') {
      const { rows } = await this.db.query<{ body: string }>(
        'select body from realtime.cluster_spill where id = $1::bigint',
        [envelope.x],
      );
      const body = rows[0]?.body;
      if (body === undefined) {
        this.log(`realtime cluster: spilled message ${envelope.x} is gone`);
        return;
      }
      envelope = parse(body);
      if (!envelope) return;
    }
    const last = this.lastSeq.get(envelope.r) ?? 0;
    if (envelope.s <= last) return;
    this.lastSeq.set(envelope.r, envelope.s);
    if (envelope.m) this.handlers.message(envelope.r, envelope.m);
  }

  /** Refreshes this replica's row, reads who else is alive, now and then cleans up. */
  private async beat(): Promise<void> {
    try {
      const { rows } = await this.db.query<{ id: string }>(
        `with beat as (
           insert into realtime.replicas (id) values ($1)
           on conflict (id) do update set seen_at = now())
         select id from realtime.replicas
          where id <> $1 and seen_at > now() - make_interval(secs => $2::float8 / 1000)`,
        [this.id, this.deadAfterMs],
      );
      this.handlers.liveness({ live: new Set(rows.map((r) => r.id)) });
      if (this.beats++ % 30 === 0) {
        await this.db.query(
          `delete from realtime.cluster_spill
            where created_at < now() - make_interval(secs => $1)`,
          [SPILL_RETENTION_SECONDS],
        );
        await this.db.query(
          "delete from realtime.replicas where seen_at < now() - interval '1 hour'",
        );
      }
    } catch (error) {
      this.log(`realtime cluster heartbeat failed: ${String(error)}`);
    }
  }
}

interface Envelope {
  r: string;
  s: number;
  x?: string;
  m?: Record<string, unknown>;
}

/** A message envelope, or null for anything else on the channel. */
function parse(text: string): Envelope | null {
  try {
    const value = JSON.parse(text) as Partial<Envelope> | null;
    if (!value || typeof value.r !== 'string' || typeof value.s !== 'number') return null;
    if (value.m !== undefined && (typeof value.m !== 'object' || value.m === null)) return null;
    return value as Envelope;
  } catch {
    return null;
  }
}
