import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import { type ReactNode, StrictMode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BackendProvider, createQueryClient, useBackendQuery, useLiveTopic } from '../src/index';
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

async function signedIn(email: string): Promise<TestClient> {
  const client = newClient();
  const { error } = await client.auth.signInWithPassword({
    email,
    password: 'correct horse battery',
  });
  if (error) throw error;
  return client;
}

const userId = async (client: TestClient) =>
  (await client.auth.getSession()).data.session?.user.id ?? '';

/** The user's notes, kept fresh by the private feed `notes:<owner>`. */
function Feed({ owner, label }: { owner: string; label: string }) {
  const notes = useBackendQuery(['feed-notes', label], (c: TestClient) =>
    c.from('notes').select('id, body').order('id'),
  );
  const status = useLiveTopic(`notes:${owner}`, {
    event: '*',
    queryKeys: [['feed-notes', label]],
    debounceMs: 20,
  });
  return (
    <div>
      <p>{`${label} status ${status}`}</p>
      <ul aria-label={label}>
        {notes.data?.map((n) => (
          <li key={String(n.id)}>{String(n.body)}</li>
        ))}
      </ul>
    </div>
  );
}

const items = (label: string) =>
  Array.from(screen.getByRole('list', { name: label }).querySelectorAll('li')).map(
    (li) => li.textContent,
  );

describe('useLiveTopic (Broadcast from the database, private topic)', () => {
  it('shows every insert, update and delete of another device, and refuses another user’s join', async () => {
    const laptop = newClient();
    const email = await signUpFresh(laptop);
    const owner = await userId(laptop);
    const phone = await signedIn(email);
    const stranger = newClient();
    await signUpFresh(stranger);

    render(<Feed owner={owner} label="laptop" />, { wrapper: wrapper(laptop) });
    await screen.findByText('laptop status SUBSCRIBED', undefined, { timeout: 10_000 });

    const { data } = await phone.from('notes').insert({ body: 'first' }).select('id').single();
    await waitFor(() => expect(items('laptop')).toEqual(['first']), { timeout: 10_000 });
    await phone.from('notes').update({ body: 'renamed' }).eq('id', data?.id);
    await waitFor(() => expect(items('laptop')).toEqual(['renamed']), { timeout: 10_000 });
    await phone.from('notes').delete().eq('id', data?.id);
    await waitFor(() => expect(items('laptop')).toEqual([]), { timeout: 10_000 });

    // Another user may not join the owner's feed: the backend refuses with its reason.
    render(<Feed owner={owner} label="stranger" />, { wrapper: wrapper(stranger) });
    await screen.findByText('stranger status CHANNEL_ERROR', undefined, { timeout: 10_000 });
  });

  it('refetches when the page comes back online or is resumed, without any message', async () => {
    const client = newClient();
    await signUpFresh(client);
    const owner = await userId(client);
    render(<Feed owner={owner} label="tab" />, { wrapper: wrapper(client) });
    await screen.findByText('tab status SUBSCRIBED', undefined, { timeout: 10_000 });
    const reads = vi.spyOn(client, 'from');
    act(() => {
      window.dispatchEvent(new Event('online'));
    });
    await waitFor(() => expect(reads).toHaveBeenCalledTimes(1));
    act(() => {
      document.dispatchEvent(new Event('resume'));
    });
    await waitFor(() => expect(reads).toHaveBeenCalledTimes(2));
  });
});
