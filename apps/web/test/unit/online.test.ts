import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  isOnline,
  noteNetwork,
  offlineNow,
  onOnlineChange,
  watchingFetch,
} from '../../src/offline/online';

const BACKEND = 'http://backend.test';
const answer = () => Promise.resolve(new Response('ok'));
const noNetwork = () => Promise.reject(new TypeError('Failed to fetch'));

describe('online: whether the backend answers', () => {
  const fetchMock = vi.fn<typeof fetch>();
  const nav = { onLine: true };

  beforeEach(() => {
    vi.useFakeTimers();
    vi.stubGlobal('navigator', nav);
    vi.stubGlobal('fetch', fetchMock);
    vi.stubGlobal('addEventListener', () => {});
    vi.stubGlobal('removeEventListener', () => {});
    nav.onLine = true;
    fetchMock.mockReset();
    noteNetwork(true);
  });
  afterEach(() => {
    noteNetwork(true);
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('goes offline when a request gets no answer, and back on the next answer', async () => {
    const sdkFetch = watchingFetch(BACKEND);
    fetchMock.mockImplementationOnce(noNetwork);
    await expect(sdkFetch(`${BACKEND}/rest/v1/files`)).rejects.toThrow('Failed to fetch');
    expect(isOnline()).toBe(false);
    fetchMock.mockImplementationOnce(() => Promise.resolve(new Response('', { status: 503 })));
    const res = await sdkFetch(`${BACKEND}/rest/v1/files`);
    expect(res.status).toBe(503); // an answer, whatever its status: the network is there
    expect(isOnline()).toBe(true);
  });

  it('does not count an aborted request', async () => {
    const sdkFetch = watchingFetch(BACKEND);
    fetchMock.mockImplementationOnce(() =>
      Promise.reject(new DOMException('The operation was aborted.', 'AbortError')),
    );
    await expect(sdkFetch(`${BACKEND}/rest/v1/files`)).rejects.toThrow('aborted');
    expect(isOnline()).toBe(true);
  });

  it('probes the backend every 3 s while offline, and tells listeners when it answers', async () => {
    watchingFetch(BACKEND);
    const changed = vi.fn();
    const stop = onOnlineChange(changed);
    fetchMock.mockImplementation(noNetwork);
    noteNetwork(false);
    expect(changed).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(3000);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(fetchMock.mock.calls[0]?.[0]).toBe(`${BACKEND}/auth/v1/health`);
    expect(fetchMock.mock.calls[0]?.[1]).toMatchObject({ mode: 'no-cors', cache: 'no-store' });
    expect(isOnline()).toBe(false);
    fetchMock.mockImplementation(answer);
    await vi.advanceTimersByTimeAsync(3000);
    expect(isOnline()).toBe(true);
    expect(changed).toHaveBeenCalledTimes(2);
    // No more probes once back.
    await vi.advanceTimersByTimeAsync(9000);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    stop();
  });

  it('queues a change when the browser is offline, without asking the network', async () => {
    nav.onLine = false;
    expect(await offlineNow()).toBe(true);
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('asks the backend once before queueing when the last request failed', async () => {
    watchingFetch(BACKEND);
    noteNetwork(false);
    fetchMock.mockImplementationOnce(answer);
    expect(await offlineNow()).toBe(false);
    expect(isOnline()).toBe(true);
    noteNetwork(false);
    fetchMock.mockImplementationOnce(noNetwork);
    expect(await offlineNow()).toBe(true);
  });
});
