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
} from '../src/index';
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

function PrivateDevices({ name, owner }: { name: string; owner?: string }) {
  const user = useUser();
  const { count, status, error } = usePresence(
    `devices:${owner ?? user?.id}`,
    { name },
    { enabled: Boolean(user), private: true },
  );
  return (
    <div>
      <p>{`${name}: ${count}`}</p>
      <p>{`${name} status ${status}`}</p>
      <p>{`${name} error ${error instanceof Error ? error.message : String(error)}`}</p>
    </div>
  );
}

function PublicDevices({ name, owner }: { name: string; owner: string }) {
  const { count, status } = usePresence(`devices:${owner}`, { name });
  return <p>{`${name}: ${count} ${status}`}</p>;
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

describe('usePresence on a private channel (RLS on realtime.messages)', () => {
  it('lets the owner’s devices see each other and refuses another user with the server’s reason', async () => {
    const laptop = newClient();
    const email = await signUpFresh(laptop);
    const owner = (await laptop.auth.getSession()).data.session?.user.id ?? '';
    const phone = await secondDevice(email);
    const stranger = newClient();
    await signUpFresh(stranger);
    const joins = vi.spyOn(laptop, 'channel');

    render(<PrivateDevices name="laptop" />, { wrapper: wrapper(laptop) });
    render(<PrivateDevices name="phone" />, { wrapper: wrapper(phone) });
    await screen.findByText('laptop: 2', undefined, { timeout: 10_000 });
    await screen.findByText('phone: 2');
    expect(screen.getByText('laptop error null')).toBeTruthy();
    expect(joins).toHaveBeenCalledWith(`devices:${owner}`, {
      config: { presence: { key: expect.any(String) }, private: true },
    });

    render(<PrivateDevices name="stranger" owner={owner} />, { wrapper: wrapper(stranger) });
    await screen.findByText('stranger status CHANNEL_ERROR', undefined, { timeout: 10_000 });
    expect(screen.getByText(/^stranger error /).textContent).toBe(
      `stranger error Unauthorized: You do not have permissions to read from this Channel topic: devices:${owner}`,
    );
    expect(screen.getByText(/^stranger: /).textContent).toBe('stranger: 0');

    // Joining the same name as a public channel reaches another room: the owner's devices
    // stay invisible to the stranger, and the stranger's presence to them.
    render(<PublicDevices name="public stranger" owner={owner} />, {
      wrapper: wrapper(stranger),
    });
    await screen.findByText('public stranger: 1 SUBSCRIBED', undefined, { timeout: 10_000 });
    expect(screen.getByText(/^laptop: /).textContent).toBe('laptop: 2');
    expect(screen.getByText(/^phone: /).textContent).toBe('phone: 2');
  });
});
