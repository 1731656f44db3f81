import type { LogBatch, LogEntry } from '@app/backend-server/console-api';
import { useEffect, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { useConsole } from '../lib/context';
import { clock } from '../lib/format';
import { type LogFilter, LogStore, matches, takeLines } from '../lib/log-store';

const ROW = 22;
const OVERSCAN = 10;

/** Follows the server's log stream into `store`, reconnecting after a drop. */
function useStream(store: LogStore) {
  const { api } = useConsole();
  const [connected, setConnected] = useState(false);
  useEffect(() => {
    const controller = new AbortController();
    let stopped = false;
    const run = async () => {
      while (!stopped) {
        try {
          const res = await api.stream(`/logs/stream?after=${store.lastSeq}`, controller.signal);
          const reader = res.body?.getReader();
          if (!res.ok || !reader) throw new Error(`HTTP ${res.status}`);
          setConnected(true);
          const decoder = new TextDecoder();
          let buffer = '';
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buffer += decoder.decode(value, { stream: true });
            const { lines, rest } = takeLines(buffer);
            buffer = rest;
            for (const line of lines) store.add(JSON.parse(line) as LogBatch);
          }
        } catch {
          // Dropped or refused: try again shortly.
        }
        setConnected(false);
        if (!stopped) await new Promise((r) => setTimeout(r, 1000));
      }
    };
    void run();
    return () => {
      stopped = true;
      controller.abort();
    };
  }, [api, store]);
  return connected;
}

function describe(e: LogEntry): string {
  if (e.kind === 'request') return `${e.method} ${e.path}`;
  if (e.kind === 'function') return `${e.source}: ${e.message}`;
  return e.message ?? '';
}

/** Every request, function output and realtime event, live, filterable. */
export default function Logs() {
  const { session } = useConsole();
  const store = useMemo(() => new LogStore(session.settings.logCapacity), [session]);
  const connected = useStream(store);
  const version = useSyncExternalStore(store.subscribe, store.getVersion);
  const [filter, setFilter] = useState<LogFilter>({ kind: '', method: '', status: '', text: '' });
  const [follow, setFollow] = useState(true);
  const [frozen, setFrozen] = useState<LogEntry[] | null>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(480);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` says the entries changed
  const shown = useMemo(
    () => (frozen ?? store.entries).filter((e) => matches(e, filter)),
    [version, filter, frozen, store],
  );
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    setHeight(el.clientHeight);
    if (follow) el.scrollTop = el.scrollHeight;
  });
  const first = Math.max(0, Math.floor(scrollTop / ROW) - OVERSCAN);
  const last = Math.min(shown.length, Math.ceil((scrollTop + height) / ROW) + OVERSCAN);
  const set = (patch: Partial<LogFilter>) => setFilter((f) => ({ ...f, ...patch }));

  return (
    <section aria-labelledby="logs-heading" className="logs">
      <h1 id="logs-heading">Logs</h1>
      <form className="toolbar" aria-label="Log filters" onSubmit={(e) => e.preventDefault()}>
        <label htmlFor="log-kind">Kind</label>
        <select id="log-kind" value={filter.kind} onChange={(e) => set({ kind: e.target.value })}>
          <option value="">all</option>
          <option value="request">requests</option>
          <option value="function">functions</option>
          <option value="realtime">realtime</option>
        </select>
        <label htmlFor="log-method">Method</label>
        <select
          id="log-method"
          value={filter.method}
          onChange={(e) => set({ method: e.target.value })}
        >
          <option value="">any</option>
          {['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'HEAD', 'OPTIONS'].map((m) => (
            <option key={m}>{m}</option>
          ))}
        </select>
        <label htmlFor="log-status">Status</label>
        <select
          id="log-status"
          value={filter.status}
          onChange={(e) => set({ status: e.target.value })}
        >
          <option value="">any</option>
          {['2xx', '3xx', '4xx', '5xx'].map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        <label htmlFor="log-text">Contains</label>
        <input
          id="log-text"
          type="search"
          value={filter.text}
          placeholder="path, message, user…"
          onChange={(e) => set({ text: e.target.value })}
        />
        <button
          type="button"
          aria-pressed={frozen !== null}
          onClick={() => setFrozen((f) => (f ? null : [...store.entries]))}
        >
          {frozen ? 'Resume' : 'Pause'}
        </button>
        <label className="inline">
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} />
          Follow newest
        </label>
        <button type="button" onClick={() => store.clear()}>
          Clear
        </button>
      </form>
      <p className="muted" aria-live="polite">
        {connected ? 'Live' : 'Connecting…'} · {shown.length} of {store.entries.length} entries
        shown (the server keeps the last {session.settings.logCapacity})
      </p>
      <div className="log-header" aria-hidden="true">
        <span>time</span>
        <span>status</span>
        <span>what</span>
        <span>ms</span>
        <span>role</span>
        <span>user</span>
      </div>
      <div
        ref={scroller}
        className="log-scroll"
        data-testid="log-scroll"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard
        tabIndex={0}
        role="log"
        aria-label="Live log"
        onScroll={(e) => {
          const el = e.currentTarget;
          setScrollTop(el.scrollTop);
          const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < ROW;
          if (follow !== atBottom) setFollow(atBottom);
        }}
      >
        <ol className="log-rows" style={{ height: shown.length * ROW }}>
          {shown.slice(first, last).map((e, i) => (
            <li
              key={e.seq}
              className={`log-row kind-${e.kind}${e.status && e.status >= 400 ? ' failed' : ''}`}
              style={{ transform: `translateY(${(first + i) * ROW}px)` }}
            >
              <span>{clock(e.time)}</span>
              <span>{e.status ?? e.level ?? ''}</span>
              <span className="what">{describe(e)}</span>
              <span>{e.durationMs ?? ''}</span>
              <span>{e.role ?? ''}</span>
              <span className="user">{e.user ?? ''}</span>
            </li>
          ))}
        </ol>
      </div>
    </section>
  );
}
