import { act, cleanup, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { createUploadQueue, type UploadControl, useUploadQueue } from '../src/index';

afterEach(() => cleanup());

/** A runner whose uploads the test finishes by hand (no server). */
function manualRunner() {
  const calls: Array<{ control: UploadControl; resolve: (v: string) => void }> = [];
  const run = (_item: unknown, control: UploadControl) =>
    new Promise<string>((resolve, reject) => {
      calls.push({ control, resolve });
      control.signal.addEventListener('abort', () => reject(control.signal.reason));
    });
  return { calls, run };
}

const blob = (name: string, size: number) => new File([new Uint8Array(size)], name);

describe('useUploadQueue over the queue snapshot', () => {
  it('renders the snapshot: items, totals, and the same items until the queue changes', async () => {
    const { calls, run } = manualRunner();
    const queue = createUploadQueue({ run, concurrency: 1 });
    const hook = renderHook(() => useUploadQueue(queue));
    expect(hook.result.current).toMatchObject({
      items: [],
      active: 0,
      bytesUploaded: 0,
      bytesTotal: 0,
      offline: false,
      queue,
    });
    act(() => {
      queue.add([blob('a', 10), blob('b', 20)]);
    });
    const items = hook.result.current.items;
    expect(items).toBe(queue.getSnapshot().items);
    expect(items.map((i) => i.state)).toEqual(['uploading', 'queued']);
    expect(hook.result.current).toMatchObject({ active: 2, bytesUploaded: 0, bytesTotal: 30 });
    hook.rerender();
    expect(hook.result.current.items).toBe(items);
    await act(async () => {
      calls[0]?.resolve('row-a');
      await new Promise((r) => setTimeout(r, 0));
    });
    expect(hook.result.current.items).not.toBe(items);
    expect(hook.result.current.items.map((i) => i.state)).toEqual(['done', 'uploading']);
    expect(hook.result.current).toMatchObject({ active: 1, bytesUploaded: 0, bytesTotal: 20 });
  });

  it('follows the window going offline and online, with or without uploads', () => {
    const { run } = manualRunner();
    const queue = createUploadQueue({ run });
    const hook = renderHook(() => useUploadQueue(queue));
    act(() => {
      window.dispatchEvent(new Event('offline'));
    });
    expect(hook.result.current.offline).toBe(true);
    expect(queue.online).toBe(false);
    act(() => {
      window.dispatchEvent(new Event('online'));
    });
    expect(hook.result.current.offline).toBe(false);
    expect(queue.online).toBe(true);
  });
});
