import { useBackendQuery } from '@app/backend-react';
import { useParams } from 'react-router';
import { formatBytes, formatDate } from '../format';
import { Loading } from '../Loading';
import { openShare, type SharedFile } from '../lib/api';
import type { DriveClient } from '../lib/client-types';
import { userErrorOf } from '../lib/use-drive';

/** A shared file, for anyone with the link: name, size and a download button. */
export default function SharePage() {
  const { token = '' } = useParams();
  const share = useBackendQuery<SharedFile, DriveClient>(
    ['share', token],
    (c) => openShare(c, token) as never,
    { staleTime: 60_000 },
  );
  return (
    <main className="auth">
      <div className="auth-card share-page">
        <p className="brand">Drive</p>
        {share.isPending ? <Loading /> : null}
        {share.error ? (
          <>
            <h1>Link unavailable</h1>
            <p role="alert" className="error">
              {userErrorOf(share.error).message}
            </p>
          </>
        ) : null}
        {share.data ? (
          <>
            <h1>{share.data.name}</h1>
            <p>
              {formatBytes(share.data.size)} · {share.data.mimeType}
            </p>
            <p className="hint">Link valid until {formatDate(share.data.expiresAt)}.</p>
            <a className="button primary" href={share.data.url} download={share.data.name}>
              Download
            </a>
          </>
        ) : null}
      </div>
    </main>
  );
}
