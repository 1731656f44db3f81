import { describe, expect, it } from 'vitest';
import { createUploadQueue, type UploadControl, type UploadItem } from './upload-queue';

/** A runner whose uploads the test finishes, fails and observes by hand (pure queue logic). */
function manualRunner() {
  const calls: Array<{
    item: UploadItem<string>;
    control: UploadControl;
    resolve: (v: string) => void;
    reject: (e: unknown) => void;
  }> = [];
  const run = (item: UploadItem<string>, control: UploadControl) =>
    new Promise<string>((resolve, reject) => {
      calls.push({ item, control, resolve, reject });
      control.signal.addEventListener('abort', () => reject(control.signal.reason));
    });
  return { calls, run };
}

const blob = (name: string, size: number) => new File([new Uint8Array(size)], name);
const flush = () => new Promise((r) => setTimeout(r, 0));
const states = (q: { getItems(): readonly UploadItem<string>[] }) =>
  q.getItems().map((i) => `${i.name}:${i.state}`);

describe('createUploadQueue', () => {
  it('runs at most `concurrency` uploads and starts the next one when one finishes', async () => {
    const { calls, run } = manualRunner();
    const queue = createUploadQueue({ run, concurrency: 3 });
    queue.add(['a', 'b', 'c', 'd', 'e'].map((n) => blob(n, 10)));
    expect(calls.map((c) => c.item.name)).toEqual(['a', 'b', 'c']);
    expect(states(queue)).toEqual([
      'a:uploading',
      'b:uploading',
      'c:uploading',
      'd:queued',
      'e:queued',
    ]);
    calls[1]?.resolve('row-b');
    await flush();
    expect(calls.map((c) => c.item.name)).toEqual(['a', 'b', 'c', 'd']);
    expect(queue.getItems()[1]).toMatchObject({
      state: 'done',
      result: 'row-b',
      bytesUploaded: 10,
    });
  });

  it('computes rate and ETA from progress over time', () => {
    const { calls, run } = manualRunner();
    let t = 1_000;
    const queue = createUploadQueue({ run, now: () => t, throttleMs: 0 });
    queue.add([blob('big', 1000)]);
    calls[0]?.control.onProgress(0, 1000);
    t += 2_000;
    calls[0]?.control.onProgress(400, 1000);
    const item = queue.getItems()[0];
    expect(item?.rate).toBe(200);
    expect(item?.etaSeconds).toBe(3);
    expect(item?.bytesUploaded).toBe(400);
  });

  it('pauses (aborting the attempt with reason "pause"), frees the slot, and resumes by running again', async () => {
    const { calls, run } = manualRunner();
    const queue = createUploadQueue({ run, concurrency: 1 });
    const [a] = queue.add([blob('a', 10), blob('b', 10)]);
    queue.pause(a as string);
    await flush();
    expect(calls[0]?.control.signal.reason).toBe('pause');
    expect(states(queue)).toEqual(['a:paused', 'b:uploading']);
    calls[1]?.resolve('b');
    await flush();
    queue.resume(a as string);
    expect(calls).toHaveLength(3);
    expect(states(queue)).toEqual(['a:uploading', 'b:done']);
  });

  it('shows retries with their time, then failure; Retry starts again', async () => {
    const { calls, run } = manualRunner();
    const queue = createUploadQueue({ run, now: () => 5_000 });
    const [id] = queue.add([blob('a', 10)]);
    calls[0]?.control.onRetry(3_000, new Error('network'));
    expect(queue.getItems()[0]).toMatchObject({ state: 'retrying', retryAt: 8_000 });
    calls[0]?.control.onProgress(5, 10);
    expect(queue.getItems()[0]?.state).toBe('uploading');
    const failure = new Error('gone');
    calls[0]?.reject(failure);
    await flush();
    expect(queue.getItems()[0]).toMatchObject({ state: 'failed', error: failure });
    queue.retry(id as string);
    expect(calls).toHaveLength(2);
    expect(queue.getItems()[0]?.state).toBe('uploading');
  });

  it('cancel aborts with reason "cancel" and forgets the upload', async () => {
    const { calls, run } = manualRunner();
    const queue = createUploadQueue({ run });
    const [id] = queue.add([blob('a', 10)]);
    queue.cancel(id as string);
    await flush();
    expect(calls[0]?.control.signal.reason).toBe('cancel');
    expect(queue.getItems()).toEqual([]);
  });

  it('offline pauses everything unfinished and online resumes only those', async () => {
    const { calls, run } = manualRunner();
    const queue = createUploadQueue({ run, concurrency: 1 });
    const [a, b, c] = queue.add([blob('a', 1), blob('b', 1), blob('c', 1)]);
    queue.pause(b as string);
    queue.setOnline(false);
    await flush();
    expect(calls[0]?.control.signal.reason).toBe('offline');
    expect(queue.getItems().map((i) => [i.state, i.pausedBy])).toEqual([
      ['paused', 'offline'],
      ['paused', 'user'],
      ['paused', 'offline'],
    ]);
    queue.setOnline(true);
    expect(queue.getItems().find((i) => i.id === a)?.state).toBe('uploading');
    expect(queue.getItems().find((i) => i.id === b)?.state).toBe('paused');
    expect(queue.getItems().find((i) => i.id === c)?.state).toBe('queued');
  });

  it('ignores reports of an attempt that was stopped', async () => {
    const { calls, run } = manualRunner();
    const queue = createUploadQueue({ run, throttleMs: 0 });
    const [id] = queue.add([blob('a', 10)]);
    queue.pause(id as string);
    calls[0]?.control.onProgress(9, 10);
    calls[0]?.resolve('late');
    await flush();
    expect(queue.getItems()[0]).toMatchObject({ state: 'paused', bytesUploaded: 0 });
  });

  it('restores unfinished uploads paused, resumes them once they have their file again', async () => {
    const { calls, run } = manualRunner();
    const queue = createUploadQueue({ run });
    const [id] = queue.restore([
      {
        name: 'film.mov',
        size: 100,
        target: 'folder-1',
        bytesUploaded: 40,
        meta: { fileId: 'f1' },
      },
    ]);
    expect(queue.getItems()[0]).toMatchObject({
      name: 'film.mov',
      state: 'paused',
      pausedBy: 'reload',
      bytesUploaded: 40,
      file: null,
      target: 'folder-1',
      meta: { fileId: 'f1' },
    });
    queue.resume(id as string);
    queue.setOnline(false);
    queue.setOnline(true);
    await flush();
    expect(calls).toHaveLength(0);
    const file = blob('film.mov', 100);
    queue.provideFile(id as string, file);
    expect(states(queue)).toEqual(['film.mov:paused']);
    queue.resume(id as string);
    expect(calls[0]?.item).toMatchObject({ file, meta: { fileId: 'f1' }, target: 'folder-1' });
    calls[0]?.control.setMeta({ fileId: 'f1', url: 'u' });
    calls[0]?.resolve('row');
    await flush();
    expect(queue.getItems()[0]).toMatchObject({ state: 'done', meta: { fileId: 'f1', url: 'u' } });
  });

  it('takes entries with their own name, target and data', () => {
    const { calls, run } = manualRunner();
    const queue = createUploadQueue({ run });
    queue.add([{ file: blob('a.txt', 1), target: 'sub', meta: 'handle' }, blob('b.txt', 2)], 'top');
    expect(calls.map((c) => [c.item.name, c.item.target, c.item.meta])).toEqual([
      ['a.txt', 'sub', 'handle'],
      ['b.txt', 'top', null],
    ]);
  });

  it('tells the app of every cancel, running or not; dismiss() and clear() forget without one', async () => {
    const { calls, run } = manualRunner();
    const cancelled: string[] = [];
    const queue = createUploadQueue({
      run,
      concurrency: 1,
      onCancel: (i) => cancelled.push(i.name),
    });
    queue.add([blob('running', 1), blob('waiting', 1)]);
    const [restored] = queue.restore([{ name: 'restored', size: 5 }]);
    const ids = queue.getItems().map((i) => i.id);
    queue.cancel(ids[1] as string);
    queue.cancel(restored as string);
    queue.cancel(ids[0] as string);
    await flush();
    expect(cancelled).toEqual(['waiting', 'restored', 'running']);
    expect(calls[0]?.control.signal.reason).toBe('cancel');

    const [restoredAgain] = queue.restore([{ name: 'again', size: 5 }]);
    queue.dismiss(restoredAgain as string);
    expect(queue.getItems().map((i) => i.name)).toEqual([]);
    queue.add([blob('left', 1)]);
    queue.dismiss(queue.getItems()[0]?.id as string);
    expect(states(queue)).toEqual(['left:uploading']);
    queue.clear();
    await flush();
    expect(queue.getItems()).toEqual([]);
    expect(calls[1]?.control.signal.reason).toBe('pause');
    expect(cancelled).toEqual(['waiting', 'restored', 'running']);
  });
});
