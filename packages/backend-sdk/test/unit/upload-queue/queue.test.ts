import { describe, expect, it } from 'vitest';
import type { Timers } from '../../../src/timers';
import {
  createUploadQueue,
  type UploadControl,
  type UploadItem,
  type UploadQueueSnapshot,
} from '../../../src/upload-queue/index';

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

/** Manual timers: nothing fires until `advance(ms)`; `now` moves only with it. */
function manualTimers(start = 0) {
  let now = start;
  let next = 0;
  const due = new Map<number, { at: number; fn: () => void }>();
  const timers: Timers = {
    setTimeout(fn, ms) {
      next += 1;
      due.set(next, { at: now + ms, fn });
      return next;
    },
    clearTimeout(id) {
      due.delete(id as number);
    },
    now: () => now,
  };
  const advance = (ms: number) => {
    const until = now + ms;
    for (;;) {
      const [id, first] = [...due].sort((a, b) => a[1].at - b[1].at)[0] ?? [];
      if (id === undefined || !first || first.at > until) break;
      due.delete(id);
      now = first.at;
      first.fn();
    }
    now = until;
  };
  return { timers, advance, pending: () => due.size };
}

const blob = (name: string, size: number) => new File([new Uint8Array(size)], name);
const flush = () => new Promise((r) => setTimeout(r, 0));
const states = (q: { getSnapshot(): UploadQueueSnapshot<string> }) =>
  q.getSnapshot().items.map((i) => `${i.name}:${i.state}`);

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
    const { timers, advance } = manualTimers(1_000);
    const queue = createUploadQueue({ run, timers, throttleMs: 0 });
    queue.add([blob('big', 1000)]);
    calls[0]?.control.onProgress(0, 1000);
    advance(2_000);
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

describe('createUploadQueue: subscribe and getSnapshot', () => {
  it('returns the same frozen snapshot until something changes, then a new one', async () => {
    const { calls, run } = manualRunner();
    const queue = createUploadQueue({ run, concurrency: 1 });
    const empty = queue.getSnapshot();
    expect(queue.getSnapshot()).toBe(empty);
    expect(Object.isFrozen(empty)).toBe(true);
    expect(empty).toEqual({ items: [], online: true, active: 0, bytesUploaded: 0, bytesTotal: 0 });

    const [a] = queue.add([blob('a', 10), blob('b', 20)]);
    const added = queue.getSnapshot();
    expect(added).not.toBe(empty);
    expect(queue.getSnapshot()).toBe(added);
    expect(added.items).toBe(queue.getItems());
    expect(empty.items).toEqual([]); // an old snapshot never changes
    expect(added).toMatchObject({ active: 2, bytesUploaded: 0, bytesTotal: 30 });

    queue.pause(a as string);
    const paused = queue.getSnapshot();
    expect(paused).not.toBe(added);
    expect(added.items.map((i) => i.state)).toEqual(['uploading', 'queued']);
    expect(paused.items.map((i) => i.state)).toEqual(['paused', 'uploading']);

    calls[1]?.resolve('b');
    await flush();
    const done = queue.getSnapshot();
    expect(done).not.toBe(paused);
    // Totals count the unfinished uploads only.
    expect(done).toMatchObject({ active: 1, bytesUploaded: 0, bytesTotal: 10 });
  });

  it('keeps the snapshot when an action changes nothing', () => {
    const { run } = manualRunner();
    const queue = createUploadQueue({ run, concurrency: 1 });
    const [a, b] = queue.add([blob('a', 1), blob('b', 1)]);
    const before = queue.getSnapshot();
    queue.resume(a as string); // uploading, not paused
    queue.retry(b as string); // queued, not failed
    queue.dismiss(a as string); // running
    queue.dismiss('no-such-id');
    queue.cancel('no-such-id');
    queue.pause('no-such-id');
    queue.provideFile('no-such-id', blob('x', 1));
    queue.clearDone(); // nothing done
    queue.setOnline(true); // already online
    expect(queue.getSnapshot()).toBe(before);
    expect(queue.getItems()).toBe(before.items);
  });

  it('tells every listener of each change until it unsubscribes', () => {
    const { run } = manualRunner();
    const queue = createUploadQueue({ run, concurrency: 1 });
    const seen: Array<[string, UploadQueueSnapshot<string>]> = [];
    const stopFirst = queue.subscribe(() => seen.push(['first', queue.getSnapshot()]));
    const stopSecond = queue.subscribe(() => seen.push(['second', queue.getSnapshot()]));
    const [a] = queue.add([blob('a', 1)]);
    expect(seen.map(([who]) => who)).toContain('first');
    expect(seen.map(([who]) => who)).toContain('second');
    expect(seen.at(-1)?.[1]).toBe(queue.getSnapshot());
    stopFirst();
    seen.length = 0;
    queue.pause(a as string);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every(([who]) => who === 'second')).toBe(true);
    stopSecond();
    seen.length = 0;
    queue.resume(a as string);
    expect(seen).toEqual([]);
  });

  it('notifies a network change even with no upload, and not a repeated one', () => {
    const { run } = manualRunner();
    const queue = createUploadQueue({ run });
    let notified = 0;
    queue.subscribe(() => {
      notified += 1;
    });
    const online = queue.getSnapshot();
    queue.setOnline(false);
    expect(notified).toBe(1);
    expect(queue.getSnapshot()).not.toBe(online);
    expect(queue.getSnapshot().online).toBe(false);
    expect(queue.online).toBe(false);
    const offline = queue.getSnapshot();
    queue.setOnline(false);
    expect(notified).toBe(1);
    expect(queue.getSnapshot()).toBe(offline);
    queue.setOnline(true);
    expect(notified).toBe(2);
    expect(queue.getSnapshot().online).toBe(true);
  });

  it('throttles progress-only notifications with the injected timers; a state change notifies at once', () => {
    const { calls, run } = manualRunner();
    const { timers, advance, pending } = manualTimers(0);
    const queue = createUploadQueue({ run, timers, throttleMs: 100 });
    queue.add([blob('a', 100)]);
    let notified = 0;
    queue.subscribe(() => {
      notified += 1;
    });
    const before = queue.getSnapshot();
    calls[0]?.control.onProgress(10, 100);
    calls[0]?.control.onProgress(20, 100);
    // The snapshot is current at once; listeners hear of it after `throttleMs`, once.
    expect(queue.getSnapshot()).not.toBe(before);
    expect(queue.getSnapshot().items[0]?.bytesUploaded).toBe(20);
    expect(notified).toBe(0);
    expect(pending()).toBe(1);
    advance(99);
    expect(notified).toBe(0);
    advance(1);
    expect(notified).toBe(1);
    expect(pending()).toBe(0);

    calls[0]?.control.onProgress(30, 100);
    expect(pending()).toBe(1);
    calls[0]?.control.onRetry(1_000, new Error('network'));
    // The retry notifies at once and takes the pending progress notification with it.
    expect(notified).toBe(2);
    expect(pending()).toBe(0);
    expect(queue.getSnapshot().items[0]).toMatchObject({
      state: 'retrying',
      retryAt: 1_100,
      bytesUploaded: 30,
    });
  });
});
