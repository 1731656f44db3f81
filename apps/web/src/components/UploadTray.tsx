import type { UploadItem, UploadQueueView } from '@app/backend-react';
import { useEffect, useId, useLayoutEffect, useRef, useState } from 'react';
import { formatBytes, formatDuration, formatNumber, formatRate } from '../format';
import { t } from '../i18n';
import type { FileRow } from '../lib/api';
import { type DriveUploadMeta, fileFromHandle } from '../lib/uploads';
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
      return t('upload.queued');
    case 'uploading':
      return t('upload.uploading');
    case 'paused':
      if (item.pausedBy === 'reload')
        return item.file ? t('upload.incompleteReady') : t('upload.incomplete');
      return item.pausedBy === 'offline' ? t('upload.pausedOffline') : t('upload.paused');
    case 'retrying': {
      const seconds = Math.max(0, Math.ceil(((item.retryAt ?? now) - now) / 1000));
      return seconds > 0
        ? t('upload.retryingIn', { time: formatDuration(seconds) })
        : t('upload.retrying');
    }
    case 'failed':
      return t('upload.failed', { reason: userErrorOf(item.error).message });
    case 'done':
      return t('upload.done');
  }
}

function Row({
  item,
  view,
  now,
  onResume,
}: {
  item: UploadItem<FileRow>;
  view: UploadQueueView<FileRow>;
  now: number;
  onResume(item: UploadItem<FileRow>): void;
}) {
  const { queue } = view;
  const pct = percent(item);
  // Rate and time left once there is a rate to tell; until then, that it is starting.
  const measured = item.state === 'uploading' && item.rate > 0;
  return (
    <li
      className={`upload upload-${item.state}`}
      aria-label={t('upload.row', { name: item.name, state: stateText(item, now) })}
    >
      <div className="upload-top">
        <span className="upload-name" title={item.name}>
          {item.name}
        </span>
        <span className="upload-state" data-state={item.state}>
          {stateText(item, now)}
        </span>
      </div>
      <progress max={100} value={pct} aria-label={t('upload.progressOf', { name: item.name })}>
        {t('upload.percent', { n: formatNumber(pct) })}
      </progress>
      <div className="upload-bottom">
        <span className="upload-numbers">
          <span className="pct">{t('upload.percent', { n: formatNumber(pct) })}</span> ·{' '}
          {t('upload.sent', {
            sent: formatBytes(item.bytesUploaded),
            size: formatBytes(item.size),
          })}
          {measured ? (
            <>
              {' '}
              · <span className="rate">{formatRate(item.rate)}</span>
              {item.etaSeconds !== null ? (
                <>
                  {' '}
                  ·{' '}
                  <span className="eta">
                    {t('upload.left', { time: formatDuration(item.etaSeconds) })}
                  </span>
                </>
              ) : null}
            </>
          ) : item.state === 'uploading' ? (
            ` · ${t('upload.starting')}`
          ) : null}
        </span>
        <span className="upload-actions">
          {item.state === 'uploading' || item.state === 'queued' || item.state === 'retrying' ? (
            <button
              type="button"
              onClick={() => queue.pause(item.id)}
              aria-label={t('upload.pauseOne', { name: item.name })}
            >
              {t('upload.pause')}
            </button>
          ) : null}
          {item.state === 'paused' ? (
            <button
              type="button"
              onClick={() => onResume(item)}
              aria-label={t('upload.resumeOne', { name: item.name })}
              title={item.file ? undefined : t('upload.resumeHint')}
            >
              {t('upload.resume')}
            </button>
          ) : null}
          {item.state === 'failed' ? (
            <button
              type="button"
              onClick={() => queue.retry(item.id)}
              aria-label={t('upload.retryOne', { name: item.name })}
            >
              {t('upload.retry')}
            </button>
          ) : null}
          {item.state !== 'done' ? (
            <button
              type="button"
              onClick={() => queue.cancel(item.id)}
              aria-label={t('upload.cancelOne', { name: item.name })}
            >
              {t('dialog.cancel')}
            </button>
          ) : null}
        </span>
      </div>
    </li>
  );
}

/** How long finished uploads stay in view before the tray folds itself to its summary. */
export const FOLD_WHEN_DONE_MS = 5000;

/**
 * The upload tray: one row per upload, with actions for each and for all. Uploads left
 * unfinished by a reload or a crash are listed as incomplete: Resume takes the file from its
 * handle where the browser kept one, else asks for the same file again. The tray folds to its
 * one-line summary — by itself a few seconds after every upload is done (not while the pointer
 * or the focus is in it; once per batch, so a tray opened again stays open) — and the page
 * keeps room for it so it never covers the list (nor, on a narrow screen, the toasts).
 */
export function UploadTray({ view }: { view: UploadQueueView<FileRow> }) {
  const [open, setOpen] = useState(true);
  const [held, setHeld] = useState(false);
  const autoFolded = useRef(false);
  const [problems, setProblems] = useState<string[]>([]);
  const [now, setNow] = useState(() => Date.now());
  const [picking, setPicking] = useState<UploadItem<FileRow> | null>(null);
  const picker = useRef<HTMLInputElement>(null);
  const tray = useRef<HTMLElement>(null);
  const listId = useId();
  const retrying = view.items.some((i) => i.state === 'retrying');
  const unfinished = view.active;
  const wasUnfinished = useRef(unfinished);

  useEffect(() => {
    onUploadProblems(setProblems);
    return () => onUploadProblems(() => {});
  }, []);
  useEffect(() => {
    if (!retrying) return;
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, [retrying]);
  // Opens again when new uploads come while it is folded.
  useEffect(() => {
    if (unfinished > wasUnfinished.current) {
      setOpen(true);
      autoFolded.current = false;
    }
    wasUnfinished.current = unfinished;
  }, [unfinished]);
  // Out of the way once everything is done (and nothing needs the user's attention).
  const allDone =
    view.items.length > 0 && problems.length === 0 && view.items.every((i) => i.state === 'done');
  useEffect(() => {
    if (!allDone || !open || held || autoFolded.current) return;
    const timer = setTimeout(() => {
      autoFolded.current = true;
      setOpen(false);
    }, FOLD_WHEN_DONE_MS);
    return () => clearTimeout(timer);
  }, [allDone, open, held]);
  // Room at the bottom of the page for the tray, so the end of the list is never under it.
  const shown = view.items.length > 0 || problems.length > 0;
  useLayoutEffect(() => {
    const root = document.documentElement;
    const element = tray.current;
    if (!shown || !element) {
      root.style.removeProperty('--tray-space');
      return;
    }
    const measure = () =>
      root.style.setProperty('--tray-space', `${Math.ceil(element.offsetHeight) + 16}px`);
    measure();
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(measure);
    observer?.observe(element);
    return () => {
      observer?.disconnect();
      root.style.removeProperty('--tray-space');
    };
  }, [shown]);

  const resume = async (item: UploadItem<FileRow>) => {
    if (item.file) {
      view.queue.resume(item.id);
      return;
    }
    const handle = (item.meta as DriveUploadMeta | null)?.handle;
    const file = handle ? await fileFromHandle(handle) : null;
    if (file && file.size === item.size) {
      view.queue.provideFile(item.id, file);
      view.queue.resume(item.id);
      return;
    }
    // No handle (or it no longer reads): the same file, picked again.
    setPicking(item);
    picker.current?.click();
  };
  const picked = (file: File | undefined) => {
    const item = picking;
    setPicking(null);
    if (!item || !file) return;
    if (file.name !== item.name || file.size !== item.size) {
      setProblems([
        t('upload.notSameFile', {
          name: item.name,
          size: formatBytes(item.size),
          other: file.name,
        }),
      ]);
      return;
    }
    setProblems([]);
    view.queue.provideFile(item.id, file);
    view.queue.resume(item.id);
  };

  if (!shown) return null;
  const summary = traySummary(view.items, problems.length);
  const anyPaused = view.items.some((i) => i.state === 'paused' && i.file);
  const anyRunning = view.items.some((i) => ['queued', 'uploading', 'retrying'].includes(i.state));

  return (
    <section
      className={`tray${open ? '' : ' tray-folded'}`}
      aria-label={t('upload.tray')}
      ref={tray}
      onPointerEnter={() => setHeld(true)}
      onPointerLeave={() => setHeld(false)}
      onFocus={() => setHeld(true)}
      onBlur={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setHeld(false);
      }}
    >
      <div className="tray-head">
        <button
          type="button"
          className="tray-toggle"
          aria-expanded={open}
          aria-controls={listId}
          onClick={() => setOpen(!open)}
        >
          <span className="tray-chevron" aria-hidden="true" />
          <span role="status" aria-live="polite">
            {summary}
          </span>
        </button>
        <span className="tray-actions">
          {anyRunning ? (
            <button type="button" onClick={() => view.queue.pauseAll()}>
              {t('upload.pauseAll')}
            </button>
          ) : null}
          {anyPaused ? (
            <button type="button" onClick={() => view.queue.resumeAll()}>
              {t('upload.resumeAll')}
            </button>
          ) : null}
          {view.active > 0 && open ? (
            <button type="button" onClick={() => view.queue.cancelAll()}>
              {t('upload.cancelAll')}
            </button>
          ) : null}
          {view.items.some((i) => i.state === 'done') ? (
            <button type="button" onClick={() => view.queue.clearDone()}>
              {t('upload.clearDone')}
            </button>
          ) : null}
          {problems.length ? (
            <button type="button" onClick={() => setProblems([])}>
              {t('upload.dismiss')}
            </button>
          ) : null}
        </span>
      </div>
      <input
        ref={picker}
        type="file"
        hidden
        aria-label={t('upload.chooseResume')}
        data-testid="resume-picker"
        onChange={(e) => {
          picked(e.target.files?.[0]);
          e.target.value = '';
        }}
      />
      {open ? (
        // Focusable, so a keyboard can scroll a long list of finished uploads (they have no
        // buttons of their own).
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable.
        <div id={listId} className="tray-body" tabIndex={0}>
          {problems.map((p) => (
            <p key={p} className="error" role="alert">
              {p}
            </p>
          ))}
          <ul className="uploads">
            {view.items.map((item) => (
              <Row key={item.id} item={item} view={view} now={now} onResume={resume} />
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  );
}
