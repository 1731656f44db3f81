import { act, cleanup, render, renderHook, screen, waitFor } from '@testing-library/react';
import { type ReactNode, StrictMode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  BackendProvider,
  createQueryClient,
  useBackendQuery,
  useChannel,
  useLiveQueries,
  usePresence,
  useUser,
} from './index';
import { newClient, signUpFresh, type TestClient } from './test-server';

afterEach(() => cleanup());

function wrapper(client: TestClient) {
  const queryClient = createQueryClient();
  return ({ children }: { children: ReactNode }) => (
    <StrictMode>
      <BackendProvider client={client} queryClient={queryClient}>
        {children}
      </BackendProvider>
    </StrictMode>
  );
}

/** A second device of the same user: another client, signed in with the same credentials. */
async function secondDevice(email: string): Promise<TestClient> {
  const client = newClient();
  const { error } = await client.auth.signInWithPassword({
    email,
    password: 'correct horse battery',
  });
  if (error) throw error;
  return client;
}

function LiveNotes({ uid }: { uid: string }) {
  const notes = useBackendQuery(['live-notes'], (c: TestClient) =>
    c.from('notes').select('body').order('id'),
  );
  const status = useLiveQueries(
    'notes-live',
    [{ table: 'notes', filter: `owner_id=eq.${uid}` }],
    [['live-notes']],
    { debounceMs: 20 },
  );
  return (
    <div>
      <p>status {status}</p>
      <ul aria-label="notes">
        {notes.data?.map((n, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: test rows have no id here.
          <li key={i}>{String(n.body)}</li>
        ))}
      </ul>
    </div>
  );
}

function Devices({ name }: { name: string }) {
  const user = useUser();
  const { count } = usePresence(`devices:${user?.id}`, { name }, { enabled: Boolean(user) });
  return <p>{`${name}: ${count}`}</p>;
}

describe('useChannel (StrictMode, real realtime)', () => {
  it('joins once, reports SUBSCRIBED, and leaves on unmount', async () => {
    const client = newClient();
    await signUpFresh(client);
    const opened = vi.spyOn(client, 'channel');
    const removed = vi.spyOn(client, 'removeChannel');
    const { result, unmount } = renderHook(() => useChannel('room:strict', () => {}), {
      wrapper: wrapper(client),
    });
    await waitFor(() => expect(result.current).toBe('SUBSCRIBED'));
    expect(opened).toHaveBeenCalledTimes(1);
    expect(client.realtime.channels).toHaveLength(1);
    unmount();
    expect(removed).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(client.realtime.channels).toHaveLength(0));
  });
});

describe('useLiveQueries (real postgres_changes, RLS)', () => {
  it('refetches when another device of the user writes, and shows no other user’s rows', async () => {
    const client = newClient();
    const email = await signUpFresh(client);
    const uid = (await client.auth.getSession()).data.session?.user.id ?? '';
    const device = await secondDevice(email);
    const stranger = newClient();
    await signUpFresh(stranger);
    render(<LiveNotes uid={uid} />, { wrapper: wrapper(client) });
    await screen.findByText('status SUBSCRIBED');
    const fetches = vi.spyOn(client, 'from');
    await stranger.from('notes').insert({ body: 'not yours' });
    await device.from('notes').insert({ body: 'from the phone' });
    await screen.findByText('from the phone', undefined, { timeout: 10_000 });
    expect(screen.queryByText('not yours')).toBeNull();
    expect(fetches).toHaveBeenCalled();
  });
});

describe('usePresence (real presence)', () => {
  it('counts the devices of a user and forgets one that leaves', async () => {
    const client = newClient();
    const email = await signUpFresh(client);
    const device = await secondDevice(email);
    render(<Devices name="laptop" />, { wrapper: wrapper(client) });
    const phone = render(<Devices name="phone" />, { wrapper: wrapper(device) });
    await screen.findByText('laptop: 2', undefined, { timeout: 10_000 });
    await screen.findByText('phone: 2');
    act(() => phone.unmount());
    await screen.findByText('laptop: 1', undefined, { timeout: 10_000 });
  });
});
