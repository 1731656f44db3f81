import type { UploadItem, UploadQueueView } from '@app/backend-react';
import { useEffect, useId, useState } from 'react';
import { formatBytes, formatDuration, formatRate } from '../format';
import type { FileRow } from '../lib/api';
import { userErrorOf } from '../lib/use-drive';
import { onUploadProblems } from './add-files';
import { traySummary } from './tray-summary';

function percent(item: UploadItem<FileRow>): number {
  return item.size > 0
    ? Math.floor((item.bytesUploaded / item.size) * 100)
    : item.state === 'done'
      ? 100
      : 0;
}

function stateText(item: UploadItem<FileRow>, now: number): string {
  switch (item.state) {
    case 'queued':
      return 'Queued';
    case 'uploading':
      return 'Uploading';
    case 'paused':
      return item.pausedBy === 'offline' ? 'Paused (offline)' : 'Paused';
    case 'retrying': {
      const seconds = Math.max(0, Math.ceil(((item.retryAt ?? now) - now) / 1000));
      return seconds > 0 ? `Retrying in ${seconds} s` : 'Retrying…';
    }
    case 'failed':
      return `Failed: ${userErrorOf(item.error).message}`;
    case 'done':
      return 'Done';
  }
}

function Row({
  item,
  view,
  now,
}: {
  item: UploadItem<FileRow>;
  view: UploadQueueView<FileRow>;
  now: number;
}) {
  const { queue } = view;
  const pct = percent(item);
  const active = item.state === 'uploading' || item.state === 'retrying';
  return (
    <li
      className={`upload upload-${item.state}`}
      aria-label={`${item.name}: ${stateText(item, now)}`}
    >
      <div className="upload-top">
        <span className="upload-name" title={item.name}>
          {item.name}
        </span>
        <span className="upload-state" data-state={item.state}>
          {stateText(item, now)}
        </span>
      </div>
      <progress max={100} value={pct} aria-label={`${item.name} progress`}>
        {pct}%
      </progress>
      <div className="upload-bottom">
        <span className="upload-numbers">
          <span className="pct">{pct}%</span> · {formatBytes(item.bytesUploaded)} of{' '}
          {formatBytes(item.size)}
          {active ? (
            <>
              {' '}
              · <span className="rate">{formatRate(item.rate)}</span> ·{' '}
              <span className="eta">{formatDuration(item.etaSeconds)} left</span>
            </>
          ) : null}
        </span>
        <span className="upload-actions">
          {item.state === 'uploading' || item.state === 'queued' || item.state === 'retrying' ? (
            <button
              type="button"
              onClick={() => queue.pause(item.id)}
              aria-label={`Pause ${item.name}`}
            >
              Pause
            </button>
          ) : null}
          {item.state === 'paused' ? (
            <button
              type="button"
              onClick={() => queue.resume(item.id)}
              aria-label={`Resume ${item.name}`}
            >
              Resume
            </button>
          ) : null}
          {item.state === 'failed' ? (
            <button
              type="button"
              onClick={() => queue.retry(item.id)}
              aria-label={`Retry ${item.name}`}
            >
              Retry
            </button>
          ) : null}
          {item.state !== 'done' ? (
            <button
              type="button"
              onClick={() => queue.cancel(item.id)}
              aria-label={`Cancel ${item.name}`}
            >
              Cancel
            </button>
          ) : null}
        </span>
      </div>
    </li>
  );
}

/** The upload tray: one row per upload, with actions for each and for all. */
export function UploadTray({ view }: { view: UploadQueueView<FileRow> }) {
  const [open, setOpen] = useState(true);
  const [problems, setProblems] = useState<string[]>([]);
  const [now, setNow] = useState(() => Date.now());
  const listId = useId();
  const retrying = view.items.some((i) => i.state === 'retrying');

  useEffect(() => {
    onUploadProblems(setProblems);
    return () => onUploadProblems(() => {});
  }, []);
  useEffect(() => {
    if (!retrying) return;
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, [retrying]);

  if (view.items.length === 0 && problems.length === 0) return null;
  const summary = traySummary(view.items, problems.length);
  const anyPaused = view.items.some((i) => i.state === 'paused');
  const anyRunning = view.items.some((i) => ['queued', 'uploading', 'retrying'].includes(i.state));

  return (
    <section className="tray" aria-label="Uploads">
      <div className="tray-head">
        <button
          type="button"
          className="tray-toggle"
          aria-expanded={open}
          aria-controls={listId}
          onClick={() => setOpen(!open)}
        >
          <span role="status" aria-live="polite">
            {summary}
          </span>
        </button>
        <span className="tray-actions">
          {anyRunning ? (
            <button type="button" onClick={() => view.queue.pauseAll()}>
              Pause all
            </button>
          ) : null}
          {anyPaused ? (
            <button type="button" onClick={() => view.queue.resumeAll()}>
              Resume all
            </button>
          ) : null}
          {view.active > 0 ? (
            <button type="button" onClick={() => view.queue.cancelAll()}>
              Cancel all
            </button>
          ) : null}
          {view.items.some((i) => i.state === 'done') ? (
            <button type="button" onClick={() => view.queue.clearDone()}>
              Clear done
            </button>
          ) : null}
          {problems.length ? (
            <button type="button" onClick={() => setProblems([])}>
              Dismiss
            </button>
          ) : null}
        </span>
      </div>
      {open ? (
        <div id={listId} className="tray-body">
          {problems.map((p) => (
            <p key={p} className="error" role="alert">
              {p}
            </p>
          ))}
          <ul className="uploads">
            {view.items.map((item) => (
              <Row key={item.id} item={item} view={view} now={now} />
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  );
}
