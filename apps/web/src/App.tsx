import { useMfaChallenge, useSession } from '@app/backend-react';
import { lazy, type ReactNode, Suspense } from 'react';
import { Navigate, Route, Routes, useLocation } from 'react-router';
import { t } from './i18n';
import { Loading } from './Loading';
import { wasSignedOutByUser } from './lib/session';

// Every screen is its own chunk: the first load carries only the shell and the session check.
const Layout = lazy(() => import('./components/Layout'));
const SignIn = lazy(() => import('./screens/Auth').then((m) => ({ default: m.SignIn })));
const SignUp = lazy(() => import('./screens/Auth').then((m) => ({ default: m.SignUp })));
const ForgotPassword = lazy(() =>
  import('./screens/Auth').then((m) => ({ default: m.ForgotPassword })),
);
const ResetPassword = lazy(() =>
  import('./screens/Auth').then((m) => ({ default: m.ResetPassword })),
);

const FilesScreen = lazy(() => import('./screens/Files'));
const SettingsScreen = lazy(() => import('./screens/Settings'));
const TrashScreen = lazy(() => import('./screens/Trash'));
const CollectionScreen = lazy(() => import('./screens/Collection'));
const SharedScreen = lazy(() => import('./screens/Shared'));
const SearchScreen = lazy(() => import('./screens/Search'));
const SharePage = lazy(() => import('./screens/SharePage'));
const InvitePage = lazy(() => import('./screens/Invite'));
const OAuthConsent = lazy(() => import('./screens/OAuthConsent'));
const CodeStep = lazy(() => import('./screens/TwoStep').then((m) => ({ default: m.CodeStep })));

function RequireSession({ children }: { children: ReactNode }) {
  const { loading, session } = useSession();
  // With 2-step verification on, a password-only session must pass the code step first.
  const step = useMfaChallenge();
  const location = useLocation();
  if (loading) return <Loading />;
  if (!session) {
    const expired = !wasSignedOutByUser();
    return (
      <Navigate
        to="/sign-in"
        replace
        state={{
          from: location.pathname + location.search,
          expired: expired && location.pathname !== '/',
        }}
      />
    );
  }
  if (step.status === 'loading') return <Loading />;
  if (step.status === 'needed' || step.status === 'verifying') return <CodeStep step={step} />;
  return children;
}

function SignedOutOnly({ children }: { children: ReactNode }) {
  const { loading, session } = useSession();
  const location = useLocation();
  if (loading) return <Loading />;
  if (session) {
    const from = (location.state as { from?: string } | null)?.from;
    return <Navigate to={from?.startsWith('/') ? from : '/files'} replace />;
  }
  return children;
}

function NotFound() {
  return (
    <main className="centered">
      <h1>{t('app.notFound')}</h1>
      <p>
        <a href="/files">{t('app.goFiles')}</a>
      </p>
    </main>
  );
}

/** Drive's routes (see PRODUCT.md). */
export function App() {
  return (
    <Suspense fallback={<Loading />}>
      <Routes>
        <Route
          path="/sign-in"
          element={
            <SignedOutOnly>
              <SignIn />
            </SignedOutOnly>
          }
        />
        <Route
          path="/sign-up"
          element={
            <SignedOutOnly>
              <SignUp />
            </SignedOutOnly>
          }
        />
        <Route path="/forgot-password" element={<ForgotPassword />} />
        <Route path="/reset-password" element={<ResetPassword />} />
        <Route path="/s/:token" element={<SharePage />} />
        <Route path="/invite/:token" element={<InvitePage />} />
        <Route
          path="/oauth/consent"
          element={
            <RequireSession>
              <OAuthConsent />
            </RequireSession>
          }
        />
        <Route
          element={
            <RequireSession>
              <Layout />
            </RequireSession>
          }
        >
          <Route path="/files" element={<FilesScreen />} />
          <Route path="/files/:folderId" element={<FilesScreen />} />
          <Route path="/recent" element={<CollectionScreen which="recent" />} />
          <Route path="/starred" element={<CollectionScreen which="starred" />} />
          <Route path="/shared" element={<SharedScreen />} />
          <Route path="/search" element={<SearchScreen />} />
          <Route path="/trash" element={<TrashScreen />} />
          <Route path="/settings" element={<SettingsScreen />} />
        </Route>
        <Route path="/" element={<Navigate to="/files" replace />} />
        <Route path="*" element={<NotFound />} />
      </Routes>
    </Suspense>
  );
}
