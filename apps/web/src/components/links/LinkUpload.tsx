import { useBackendClient } from '@app/backend-react';
import type { ResumableUpload, ResumableUploadOptions } from '@app/backend-sdk/tus';
import { useRef, useState } from 'react';
import { formatBytes, formatNumber } from '../../format';
import { t } from '../../i18n';
import type { DriveClient } from '../../lib/client-types';
import type { LinkVisitor, OpenedLink } from '../../lib/links-api';
import { validity } from './LinkFile';
import { messageOf } from './shared';

interface Sent {
  id: string;
  name: string;
  size: number;
  bytes: number;
  state: 'uploading' | 'paused' | 'done' | 'failed';
  /** Its tus upload has started (Pause and Resume act on it). */
  started?: boolean;
  error?: string;
}

/** Where an unfinished upload's key is kept, so that picking the same file again resumes it. */
const keyOf = (token: string, f: File) =>
  `drive-link-upload:${token}:${f.name}:${f.size}:${f.lastModified}`;

/**
 * A file request: anyone with the link uploads files into the owner's folder, and sees
 * nothing of it — not even what others sent. Each file goes up with the SDK's resumable
 * (tus) upload, authorised for its one path by the link; Pause stops sending and Resume goes
 * on from the server's offset; picking the same file again after an interruption resumes it.
 */
export default function LinkUpload({
  link,
  visitor,
  token,
}: {
  link: OpenedLink;
  visitor: LinkVisitor;
  token: string;
}) {
  const client = useBackendClient<DriveClient>();
  const [sent, setSent] = useState<Sent[]>([]);
  // The uploads under way, by entry, for Pause and Resume.
  const running = useRef(new Map<string, ResumableUpload>());
  const update = (id: string, change: Partial<Sent>) =>
    setSent((all) => all.map((s) => (s.id === id ? { ...s, ...change } : s)));

  const send = async (file: File) => {
    const id = crypto.randomUUID();
    setSent((all) => [
      ...all,
      { id, name: file.name, size: file.size, bytes: 0, state: 'uploading' },
    ]);
    const stored = keyOf(token, file);
    try {
      const begun = await visitor.upload(
        { name: file.name, size: file.size, type: file.type || 'application/octet-stream' },
        localStorage.getItem(stored),
      );
      localStorage.setItem(stored, begun.key);
      const options: ResumableUploadOptions = {
        signature: begun.signature,
        contentType: file.type || 'application/octet-stream',
        onProgress: (p) => update(id, { bytes: p.bytes }),
      };
      const upload = client.storage
        .from('files')
        .uploadResumable(begun.path, file, options) as ResumableUpload;
      running.current.set(id, upload);
      update(id, { started: true });
      const { error } = await upload.result;
      running.current.delete(id);
      if (error) throw error;
      await visitor.finish(begun.key);
      localStorage.removeItem(stored);
      update(id, { state: 'done', bytes: file.size });
    } catch (e) {
      running.current.delete(id);
      update(id, { state: 'failed', error: messageOf(e) });
    }
  };
  const pause = (s: Sent) => {
    running.current.get(s.id)?.pause();
    update(s.id, { state: 'paused' });
  };
  const resume = (s: Sent) => {
    void running.current.get(s.id)?.resume();
    update(s.id, { state: 'uploading' });
  };

  return (
    <>
      <h1>{t('link.uploadTo', { name: link.name })}</h1>
      <p className="hint">
        {t('link.uploadHint')}
        {link.maxUploadBytes
          ? ` ${t('link.uploadCap', { size: formatBytes(Number(link.maxUploadBytes)) })}`
          : ''}{' '}
        {validity(link)}
      </p>
      <label className="button primary upload-pick">
        {t('link.choose')}
        <input
          type="file"
          multiple
          className="sr-only"
          data-testid="link-file-picker"
          onChange={(e) => {
            for (const f of Array.from(e.target.files ?? [])) void send(f);
            e.target.value = '';
          }}
        />
      </label>
      {sent.length > 0 ? (
        <ul className="link-entries" aria-label={t('link.yourUploads')}>
          {sent.map((s) => (
            <li key={s.id} data-state={s.state}>
              <span>{s.name}</span>
              {s.state === 'uploading' || s.state === 'paused' ? (
                <span className="link-progress">
                  <progress
                    aria-label={t('link.uploading', { name: s.name })}
                    max={s.size || 1}
                    value={s.bytes}
                  />
                  <span className="pct">
                    {t(s.state === 'paused' ? 'link.pausedPercent' : 'link.percent', {
                      pct: formatNumber(Math.floor((s.bytes / (s.size || 1)) * 100)),
                    })}
                  </span>
                  {!s.started ? null : s.state === 'uploading' ? (
                    <button
                      type="button"
                      aria-label={t('link.pauseName', { name: s.name })}
                      onClick={() => pause(s)}
                    >
                      {t('link.pause')}
                    </button>
                  ) : (
                    <button
                      type="button"
                      aria-label={t('link.resumeName', { name: s.name })}
                      onClick={() => resume(s)}
                    >
                      {t('link.resume')}
                    </button>
                  )}
                </span>
              ) : null}
              {s.state === 'done' ? <span>{t('link.uploaded')}</span> : null}
              {s.state === 'failed' ? (
                <span className="error" role="alert">
                  {s.error}
                </span>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}
