import { act, cleanup, render, renderHook, screen, waitFor } from '@testing-library/react';
import { type ReactNode, StrictMode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  BackendProvider,
  createQueryClient,
  errorMessage,
  useBackendMutation,
  useBackendQuery,
  useRangeQuery,
  useSession,
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

function Notes() {
  const notes = useBackendQuery(['notes'], (c: TestClient) =>
    c.from('notes').select('id, body').order('id'),
  );
  const add = useBackendMutation(
    (body: string, c: TestClient) => c.from('notes').insert({ body }).select().single(),
    { invalidates: [['notes']] },
  );
  const bad = useBackendMutation((body: string, c: TestClient) =>
    c.from('notes').insert({ body, owner_id: '00000000-0000-0000-0000-000000000000' }),
  );
  if (notes.isPending) return <p>loading</p>;
  if (notes.error) return <p role="alert">{errorMessage(notes.error)}</p>;
  return (
    <div>
      <ul aria-label="notes">
        {notes.data?.map((n) => (
          <li key={String(n.id)}>{String(n.body)}</li>
        ))}
      </ul>
      <button type="button" onClick={() => add.mutate(`note ${(notes.data?.length ?? 0) + 1}`)}>
        add
      </button>
      <button type="button" onClick={() => bad.mutate('forged')}>
        forge
      </button>
      {bad.error ? (
        <p role="alert">refused {String((bad.error as { code?: string }).code)}</p>
      ) : null}
    </div>
  );
}

describe('useSession / useUser (StrictMode, real auth)', () => {
  it('follows sign-up and sign-out, with one auth subscription for every hook', async () => {
    const client = newClient();
    const subscribe = vi.spyOn(client.auth, 'onAuthStateChange');
    const { result } = renderHook(
      () => ({ session: useSession(), user: useUser(), again: useSession() }),
      {
        wrapper: wrapper(client),
      },
    );
    await waitFor(() => expect(result.current.session.loading).toBe(false));
    expect(result.current.session.session).toBeNull();
    expect(result.current.user).toBeNull();

    const email = await act(() => signUpFresh(client));
    await waitFor(() => expect(result.current.user?.email).toBe(email));
    expect(result.current.again.session?.access_token).toBe(
      result.current.session.session?.access_token,
    );
    // StrictMode subscribes, unsubscribes and subscribes again: one live subscription at a time.
    expect(subscribe.mock.calls.length).toBeLessThanOrEqual(2);

    await act(async () => {
      await client.auth.signOut();
    });
    await waitFor(() => expect(result.current.session.session).toBeNull());
    expect(result.current.session.event).toBe('SIGNED_OUT');
  });
});

describe('useBackendQuery / useBackendMutation (real REST, RLS)', () => {
  it('loads, writes, refetches what the write invalidated, and reports RLS refusals', async () => {
    const client = newClient();
    await signUpFresh(client);
    await client.from('notes').insert({ body: 'note 1' });
    render(<Notes />, { wrapper: wrapper(client) });
    await screen.findByText('note 1');
    act(() => screen.getByText('add').click());
    await screen.findByText('note 2');
    act(() => screen.getByText('forge').click());
    expect((await screen.findByRole('alert')).textContent).toBe('refused 42501');
    const rows = await client.from('notes').select('body').order('id');
    expect(rows.data).toEqual([{ body: 'note 1' }, { body: 'note 2' }]);
  });

  it('shows another user none of those rows', async () => {
    const client = newClient();
    await signUpFresh(client);
    render(<Notes />, { wrapper: wrapper(client) });
    const list = await screen.findByRole('list', { name: 'notes' });
    expect(list.children).toHaveLength(0);
  });
});

describe('useRangeQuery (real REST, ranges + exact count)', () => {
  it('fetches only the pages around what is visible, and knows the total', async () => {
    const client = newClient();
    await signUpFresh(client);
    const insert = await client
      .from('notes')
      .insert(
        Array.from({ length: 250 }, (_, i) => ({ body: `row ${String(i).padStart(3, '0')}` })),
      );
    expect(insert.error).toBeNull();
    const ranges: Array<[number, number]> = [];
    const counted: boolean[] = [];
    const { result } = renderHook(
      () =>
        useRangeQuery({
          queryKey: ['notes-range'],
          pageSize: 50,
          fetchRange: (
            c: TestClient,
            from: number,
            to: number,
            _signal: AbortSignal,
            options: { count: boolean },
          ) => {
            ranges.push([from, to]);
            counted.push(options.count);
            return c
              .from('notes')
              .select('id, body', options.count ? { count: 'exact' } : {})
              .order('body')
              .range(from, to);
          },
        }),
      { wrapper: wrapper(client) },
    );
    await waitFor(() => expect(result.current.total).toBe(250));
    expect(result.current.rowAt(0)?.body).toBe('row 000');
    expect(result.current.rowAt(120)).toBeUndefined();
    act(() => result.current.setVisibleRange(120, 130));
    await waitFor(() => expect(result.current.rowAt(120)?.body).toBe('row 120'));
    act(() => result.current.setVisibleRange(240, 249));
    await waitFor(() => expect(result.current.rowAt(249)?.body).toBe('row 249'));
    expect(result.current.error).toBeNull();
    // Pages around the visible rows only, and never past the end of the list.
    const pages = new Set(ranges.map(([from]) => from / 50));
    expect([...pages].sort()).toEqual([0, 1, 2, 3, 4]);
    expect(ranges.every(([from]) => from < 250)).toBe(true);
    // Only the first page asks for the (costly) exact count.
    expect(ranges.filter((_, i) => counted[i]).map(([from]) => from)).toEqual([0]);
  });
});
