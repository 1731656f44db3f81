/**
 * The console's Logs API (`/_console/api/logs`): the kept entries, a live stream of new
 * ones and clearing. On PGlite they are this process's live log; on PostgreSQL the cluster
 * log, every replica's entries tagged with its `replica` (src/logs/cluster-log.ts).
 */
import { Hono } from 'hono';
import type { DevTools } from '../logs/index';
import type { AppEnv } from '../service-module';
import type { LogBatch, LogEntry, LogsResponse } from './api-types';

interface LogView {
  since(after: number): Promise<LogEntry[]>;
  lastSeq(): Promise<number>;
  clear(): Promise<void>;
  capacity: number;
  /** How often a stream looks for new entries (ms). */
  pollMs: number;
}

function viewOf(tools: DevTools): LogView {
  const { cluster, log } = tools;
  if (cluster) {
    return {
      since: (after) => cluster.since(after),
      lastSeq: () => cluster.lastSeq(),
      clear: async () => {
        log.clear();
        await cluster.clear();
      },
      capacity: cluster.capacity,
      pollMs: 250,
    };
  }
  return {
    since: async (after) => log.since(after),
    lastSeq: async () => log.lastSeq,
    clear: async () => log.clear(),
    capacity: log.capacity,
    pollMs: 100,
  };
}

/** The routes, and `close` to end the open streams (at server stop). */
export function logRoutes(tools: DevTools): { routes: Hono<AppEnv>; close(): void } {
  const api = new Hono<AppEnv>();
  const streams = new Set<() => void>();

  api.get('/', async (c) => {
    const view = viewOf(tools);
    const after = Number(c.req.query('after') ?? 0) || 0;
    const [entries, lastSeq] = await Promise.all([view.since(after), view.lastSeq()]);
    return c.json({ entries, lastSeq, capacity: view.capacity } satisfies LogsResponse);
  });

  // Live log: newline-delimited JSON, one line per batch (an array of entries) when there
  // are new ones, and `[]` every 15 s so proxies keep the stream open.
  api.get('/stream', async (c) => {
    const view = viewOf(tools);
    let cursor = Number(c.req.query('after') ?? 0) || 0;
    // `after` past the newest entry (the console asks for only what comes next) starts at the
    // newest entry — fixed before the answer's head goes out, so that every request the
    // reader makes once it has the head is in the stream.
    const last = await view.lastSeq().catch(() => null);
    if (last !== null) cursor = Math.min(cursor, last);
    const encoder = new TextEncoder();
    let stop = () => {};
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        let busy = false;
        const poll = async () => {
          if (busy) return;
          busy = true;
          try {
            const batch: LogBatch = await view.since(cursor);
            const last = batch.at(-1);
            if (!last || !streams.has(end)) return;
            cursor = last.seq;
            controller.enqueue(encoder.encode(`${JSON.stringify(batch)}\n`));
          } catch {
            // The database is away for a moment: the next poll tries again.
          } finally {
            busy = false;
          }
        };
        const timer = setInterval(() => void poll(), view.pollMs);
        const ping = setInterval(() => controller.enqueue(encoder.encode('[]\n')), 15_000);
        timer.unref();
        ping.unref();
        const end = () => {
          stop();
          try {
            controller.close();
          } catch {}
        };
        stop = () => {
          clearInterval(timer);
          clearInterval(ping);
          streams.delete(end);
        };
        streams.add(end);
        void poll();
        c.req.raw.signal.addEventListener('abort', end);
      },
      cancel() {
        stop();
      },
    });
    return new Response(body, {
      headers: { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' },
    });
  });

  api.delete('/', async (c) => {
    await viewOf(tools).clear();
    return c.body(null, 204);
  });

  return {
    routes: api,
    close() {
      for (const end of [...streams]) end();
    },
  };
}
