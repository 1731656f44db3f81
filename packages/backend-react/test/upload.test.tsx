import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import { type ReactNode, StrictMode } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BackendProvider,
  createQueryClient,
  createUploadQueue,
  type UploadRunner,
  useUploadQueue,
} from '../src/index';
import { newClient, signUpFresh, type TestClient } from './test-server';

afterEach(() => cleanup());

const MiB = 1024 * 1024;

/** The README's runner: the SDK's resumable upload, paused or terminated through the signal. */
function sdkRunner(client: TestClient, uid: string): UploadRunner<unknown> {
  return async (item, control) => {
    const upload = client.storage
      .from('attachments')
      .uploadResumable(`${uid}/${item.name}`, item.file, {
        chunkSize: MiB,
        urlStore: false,
        onProgress: (p: { bytes: number; total?: number }) => control.onProgress(p.bytes, p.total),
        onRetry: (r: { delay: number; error: unknown }) => control.onRetry(r.delay, r.error),
      });
    control.signal.addEventListener('abort', () => {
      if (control.signal.reason === 'cancel') void upload.abort({ terminate: true });
      else upload.pause();
    });
    const stopped = new Promise<never>((_, reject) =>
      control.signal.addEventListener('abort', () => reject(control.signal.reason)),
    );
    const { data, error } = await Promise.race([upload.result, stopped]);
    if (error) throw error;
    return data;
  };
}

describe('useUploadQueue with the SDK (real storage + tus)', () => {
  it('uploads files three at a time with progress, survives unmounts, and goes offline and back', async () => {
    const client = newClient();
    await signUpFresh(client);
    const uid = (await client.auth.getSession()).data.session?.user.id ?? '';
    let running = 0;
    let most = 0;
    const progress: number[] = [];
    const base = sdkRunner(client, uid);
    const queue = createUploadQueue({
      concurrency: 3,
      run: async (item, control) => {
        running += 1;
        most = Math.max(most, running);
        try {
          return await base(item, {
            ...control,
            signal: control.signal,
            onProgress: (bytes, total) => {
              progress.push(bytes);
              control.onProgress(bytes, total);
            },
          });
        } finally {
          running -= 1;
        }
      },
    });
    const queryClient = createQueryClient();
    const wrapper = ({ children }: { children: ReactNode }) => (
      <StrictMode>
        <BackendProvider client={client} queryClient={queryClient}>
          {children}
        </BackendProvider>
      </StrictMode>
    );
    const files = Array.from(
      { length: 5 },
      (_, i) => new File([new Uint8Array(2 * MiB + i).fill(i)], `f${i}.bin`),
    );
    const first = renderHook(() => useUploadQueue(queue), { wrapper });
    act(() => {
      queue.add(files);
    });
    expect(first.result.current.items.filter((i) => i.state === 'uploading')).toHaveLength(3);
    first.unmount(); // uploads go on without any component
    const second = renderHook(() => useUploadQueue(queue), { wrapper });
    await waitFor(
      () => expect(second.result.current.items.every((i) => i.state === 'done')).toBe(true),
      {
        timeout: 20_000,
      },
    );
    expect(most).toBe(3);
    // 1 MiB chunks: at least two progress reports per 2 MiB file.
    expect(progress.filter((b) => b > 0).length).toBeGreaterThanOrEqual(10);
    expect(second.result.current.active).toBe(0);
    const listed = await client.storage.from('attachments').list(uid);
    expect((listed.data ?? []).map((o: { name: string }) => o.name).sort()).toEqual([
      'f0.bin',
      'f1.bin',
      'f2.bin',
      'f3.bin',
      'f4.bin',
    ]);

    // Offline pauses, online resumes (the hook follows the window's events).
    const big = new File([new Uint8Array(8 * MiB).fill(9)], 'big.bin');
    act(() => {
      queue.add([big]);
    });
    act(() => {
      window.dispatchEvent(new Event('offline'));
    });
    expect(second.result.current.offline).toBe(true);
    expect(second.result.current.items.at(-1)).toMatchObject({
      state: 'paused',
      pausedBy: 'offline',
    });
    act(() => {
      window.dispatchEvent(new Event('online'));
    });
    await waitFor(() => expect(second.result.current.items.at(-1)?.state).toBe('done'), {
      timeout: 20_000,
    });
    expect(second.result.current.items.at(-1)?.bytesUploaded).toBe(8 * MiB);
  });
});
