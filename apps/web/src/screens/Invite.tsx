import {
  useBackendMutation,
  useBackendQuery,
  useMfaChallenge,
  useSession,
} from '@app/backend-react';
import { useEffect, useRef } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { t } from '../i18n';
import { rich } from '../i18n/rich';
import { Loading } from '../Loading';
import type { DriveClient } from '../lib/client-types';
import { userErrorOf } from '../lib/use-drive';
import { AuthCard } from './Auth';
import { CodeStep } from './TwoStep';

/** What the invitation page may know from the token alone (`invitation` rpc, signed out too). */
interface Invitation {
  kind: 'file' | 'folder';
  item_id: string;
  item_name: string;
  role: string;
  email: string;
  sender_name: string;
}

const roleName = (role: string) =>
  role === 'viewer' ? t('role.viewer') : role === 'editor' ? t('role.editor') : role;

const hintOf = (error: unknown): string | null =>
  typeof error === 'object' && error !== null && 'hint' in error
    ? String((error as { hint: unknown }).hint)
    : null;

function useInvitation(token: string) {
  return useBackendQuery<Invitation[], DriveClient>(
    ['invitation', token],
    (c) => c.rpc('invitation', { p_token: token }) as never,
    { staleTime: 60_000 },
  );
}

function Unavailable() {
  return (
    <AuthCard title={t('invite.unavailable')}>
      <p role="alert">{t('invite.used')}</p>
      <p>{t('invite.askAgain')}</p>
      <p className="links">
        <Link to="/files">{t('invite.goDrive')}</Link>
      </p>
    </AuthCard>
  );
}

/** Signed out: who invited you to what, then sign up (or in) and come back here. */
function SignedOut({ token }: { token: string }) {
  const invitation = useInvitation(token);
  if (invitation.isPending) return <Loading />;
  if (invitation.error) {
    return (
      <AuthCard title={t('invite.title')}>
        <p role="alert" className="error">
          {userErrorOf(invitation.error).message}
        </p>
      </AuthCard>
    );
  }
  const it = invitation.data?.[0];
  if (!it) return <Unavailable />;
  const back = { from: `/invite/${token}`, email: it.email };
  return (
    <AuthCard title={t('invite.invited')}>
      <p>
        {rich(
          it.sender_name
            ? t('invite.shared', {
                sender: it.sender_name,
                kind: it.kind,
                name: it.item_name,
                role: roleName(it.role),
              })
            : t('invite.sharedSomeone', {
                kind: it.kind,
                name: it.item_name,
                role: roleName(it.role),
              }),
          [(s) => <strong>{s}</strong>],
        )}
      </p>
      <p>{rich(t('invite.createWith', { email: it.email }), [(s) => <strong>{s}</strong>])}</p>
      <p className="invite-actions">
        <Link className="button primary" to="/sign-up" state={back}>
          {t('auth.createAccountLink')}
        </Link>
        <Link className="button" to="/sign-in" state={back}>
          {t('auth.signIn')}
        </Link>
      </p>
    </AuthCard>
  );
}

/** Where an item opens: a folder in Files; a file in "Shared with me" (or its own folder). */
async function placeOf(c: DriveClient, kind: string, id: string, own: boolean): Promise<string> {
  if (kind === 'folder') return `/files/${id}`;
  if (!own) return '/shared';
  const { data } = await c.from('files').select('folder_id').eq('id', id).maybeSingle();
  const folder = (data as { folder_id: string | null } | null)?.folder_id;
  return folder ? `/files/${folder}` : '/files';
}

/** Signed in: takes the invitation and opens the item. */
function Accept({ token }: { token: string }) {
  const navigate = useNavigate();
  const invitation = useInvitation(token);
  const started = useRef(false);
  const accept = useBackendMutation(
    async (t: string, c: DriveClient) => {
      const res = await c.rpc('accept_invitation', { p_token: t });
      if (res.error) {
        // Your own item (you shared it with another address of yours): open it.
        const own = invitation.data?.[0];
        if (hintOf(res.error) === 'own_item' && own) {
          return { data: await placeOf(c, own.kind, own.item_id, true), error: null };
        }
        return { data: null, error: res.error };
      }
      const taken = (res.data as Array<{ kind: string; id: string }>)[0];
      return {
        data: taken ? await placeOf(c, taken.kind, taken.id, false) : '/shared',
        error: null,
      };
    },
    { onSuccess: (to) => navigate(to as string, { replace: true }) },
  );
  // The invitation's details first (own_item needs them), then one acceptance (StrictMode
  // mounts effects twice).
  const ready = !invitation.isPending;
  useEffect(() => {
    if (!ready || started.current) return;
    started.current = true;
    accept.mutate(token);
  }, [ready, accept, token]);
  if (accept.error) {
    if (hintOf(accept.error) === 'invitation_not_found') return <Unavailable />;
    return (
      <AuthCard title={t('invite.title')}>
        <p role="alert" className="error">
          {userErrorOf(accept.error).message}
        </p>
        <p className="links">
          <Link to="/files">{t('invite.goDrive')}</Link>
        </p>
      </AuthCard>
    );
  }
  return <Loading />;
}

/** `/invite/:token`, the link of an invitation mail (see backend/SHARING.md). */
export default function InvitePage() {
  const { token = '' } = useParams();
  const { loading, session } = useSession();
  const step = useMfaChallenge();
  if (loading) return <Loading />;
  if (!session) return <SignedOut token={token} />;
  if (step.status === 'loading') return <Loading />;
  if (step.status === 'needed' || step.status === 'verifying') return <CodeStep step={step} />;
  return <Accept token={token} />;
}
