import { lazy, Suspense, useCallback, useEffect, useMemo, useState } from 'react';
import { useParams } from 'react-router';
import { Field } from '../components/Form';
import { t } from '../i18n';
import { Loading } from '../Loading';
import { LinkError, linkVisitor, type OpenedLink } from '../lib/links-api';

const LinkFile = lazy(() => import('../components/links/LinkFile'));
const LinkFolder = lazy(() => import('../components/links/LinkFolder'));
const LinkUpload = lazy(() => import('../components/links/LinkUpload'));

const GONE = new Set(['expired', 'revoked', 'exhausted']);
const ASKS_PASSWORD = new Set(['password_required', 'wrong_password', 'rate_limited']);

/**
 * A link for anyone (`/s/:token`): asks for its password when it has one, then shows the
 * file, the folder to browse, or the upload form of a file request. The `share` function
 * decides everything; a link that no longer works says why.
 */
export default function SharePage() {
  const { token = '' } = useParams();
  const visitor = useMemo(() => linkVisitor(token), [token]);
  const [opened, setOpened] = useState<OpenedLink | null>(null);
  const [error, setError] = useState<LinkError | null>(null);
  const [pending, setPending] = useState(true);

  const open = useCallback(
    async (password?: string) => {
      setPending(true);
      try {
        setOpened(await visitor.open(password));
        setError(null);
      } catch (e) {
        setError(
          e instanceof LinkError ? e : new LinkError(0, 'unavailable', t('link.error.unavailable')),
        );
      } finally {
        setPending(false);
      }
    },
    [visitor],
  );
  useEffect(() => {
    void open();
  }, [open]);

  const asksPassword = error && ASKS_PASSWORD.has(error.code);
  const wide = opened?.kind === 'folder' && opened.mode !== 'upload';
  return (
    <main className="auth">
      <div className={`auth-card share-page${wide ? ' link-page' : ''}`}>
        <p className="brand">{t('nav.brand')}</p>
        {pending && !opened && !error ? <Loading /> : null}
        {error && !asksPassword ? (
          <>
            <h1>{GONE.has(error.code) ? t('share.gone') : t('share.unavailable')}</h1>
            <p role="alert" className="error">
              {error.message}
            </p>
          </>
        ) : null}
        {asksPassword ? (
          <PasswordForm
            error={error.code === 'password_required' ? null : error}
            pending={pending}
            onSubmit={(password) => void open(password)}
          />
        ) : null}
        {opened ? (
          <Suspense fallback={<Loading />}>
            {opened.mode === 'upload' ? (
              <LinkUpload link={opened} visitor={visitor} token={token} />
            ) : opened.kind === 'folder' ? (
              <LinkFolder link={opened} visitor={visitor} />
            ) : (
              <LinkFile link={opened} visitor={visitor} />
            )}
          </Suspense>
        ) : null}
      </div>
    </main>
  );
}

function PasswordForm({
  error,
  pending,
  onSubmit,
}: {
  error: LinkError | null;
  pending: boolean;
  onSubmit(password: string): void;
}) {
  const [password, setPassword] = useState('');
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit(password);
      }}
    >
      <h1>{t('share.needsPassword')}</h1>
      <p className="hint">{t('share.askPassword')}</p>
      <Field
        label={t('auth.password')}
        type="password"
        name="link-password"
        autoComplete="off"
        required
        value={password}
        onChange={setPassword}
        error={error ? error.message : null}
        alert
      />
      <button type="submit" className="primary" disabled={pending || !password}>
        {t('share.open')}
      </button>
    </form>
  );
}
