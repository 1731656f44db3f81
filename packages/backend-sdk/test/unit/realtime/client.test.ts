import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHttp } from '../../../src/http/index';
import { RealtimeClient, type WebSocketLike } from '../../../src/realtime/client';
import type { Timers } from '../../../src/timers';

/** Manual timers: `advance(ms)` fires what is due, in order. */
function manualTimers() {
  let now = 0;
  let next = 0;
  const due = new Map<number, { at: number; fn: () => void }>();
  const timers: Timers = {
    setTimeout: (fn, ms) => {
      due.set(++next, { at: now + ms, fn });
      return next;
    },
    clearTimeout: (id) => void due.delete(id as number),
    now: () => now,
  };
  const advance = async (ms: number) => {
    const end = now + ms;
    for (;;) {
      const [id, t] = [...due.entries()].sort((a, b) => a[1].at - b[1].at)[0] ?? [];
      if (id === undefined || !t || t.at > end) break;
      due.delete(id);
      now = Math.max(now, t.at); // a timer due while the device slept fires late
      t.fn();
      await new Promise((r) => setTimeout(r, 0));
    }
    now = end;
  };
  /** The device sleeps `ms`: the clock moves on, no timer fires until the next `advance`. */
  const sleep = (ms: number) => {
    now += ms;
  };
  return { timers, advance, sleep };
}

/** A scripted socket: records frames; the test opens it and answers. */
class FakeSocket implements WebSocketLike {
  static all: FakeSocket[] = [];
  readyState = 0;
  binaryType = 'blob';
  sent: unknown[] = [];
  onopen: ((e: unknown) => void) | null = null;
  onclose: ((e: unknown) => void) | null = null;
  onerror: ((e: unknown) => void) | null = null;
  onmessage: ((e: { data: unknown }) => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.all.push(this);
  }
  send(data: string | ArrayBuffer) {
    this.sent.push(typeof data === 'string' ? JSON.parse(data) : data);
  }
  close() {
    this.readyState = 3;
  }
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  reply(ref: string, joinRef: string | null, topic: string, response: object = {}) {
    this.onmessage?.({
      data: JSON.stringify([joinRef, ref, topic, 'phx_reply', { status: 'ok', response }]),
    });
  }
  frames(event: string) {
    return (this.sent as unknown[][]).filter((f) => Array.isArray(f) && f[3] === event);
  }
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('RealtimeClient (scripted socket, manual timers)', () => {
  it('joins with the current token, beats every 25 s, and reconnects with backoff after a missed beat', async () => {
    FakeSocket.all = [];
    const { timers, advance } = manualTimers();
    let token = 'T1';
    const http = createHttp({ url: 'http://h', key: 'ANON', accessToken: () => token });
    const client = new RealtimeClient(http, { transport: FakeSocket, timers });
    const statuses: string[] = [];
    client.channel('room').subscribe((s) => statuses.push(s));
    const first = FakeSocket.all[0] as FakeSocket;
    expect(first.url).toBe('ws://h/realtime/v1/websocket?apikey=ANON&vsn=2.0.0');
    first.open();
    await tick();
    const [join] = first.frames('phx_join');
    expect(join?.slice(2, 4)).toEqual(['realtime:room', 'phx_join']);
    expect((join?.[4] as { access_token?: string } | undefined)?.access_token).toBe('T1');
    first.reply(join?.[1] as string, join?.[0] as string, 'realtime:room', {
      postgres_changes: [],
    });
    await tick();
    expect(statuses).toEqual(['SUBSCRIBED']);

    await advance(25_000);
    const [beat] = first.frames('heartbeat');
    expect(beat).toEqual([null, beat?.[1], 'phoenix', 'heartbeat', {}]);
    first.reply(beat?.[1] as string, null, 'phoenix');
    token = 'T2'; // the refreshed token is pushed with the next beat
    await advance(25_000);
    await tick();
    const pushed = first.frames('access_token');
    expect(pushed.map((f) => f[4])).toEqual([{ access_token: 'T2' }]);

    // No reply to this beat: at the next one the connection counts as lost.
    await advance(25_000);
    expect(statuses).toEqual(['SUBSCRIBED', 'CHANNEL_ERROR']);
    expect(FakeSocket.all).toHaveLength(1);
    await advance(999);
    expect(FakeSocket.all).toHaveLength(1);
    await advance(1);
    expect(FakeSocket.all).toHaveLength(2); // after 1 s
    // The handshake never completes: dropped after 10 s, next try after 2 s.
    await advance(10_000);
    await advance(2_000);
    expect(FakeSocket.all).toHaveLength(3);
    const third = FakeSocket.all[2] as FakeSocket;
    token = 'T3';
    third.open();
    await tick();
    const [rejoin] = third.frames('phx_join');
    expect((rejoin?.[4] as { access_token?: string } | undefined)?.access_token).toBe('T3');
    third.reply(rejoin?.[1] as string, rejoin?.[0] as string, 'realtime:room', {
      postgres_changes: [],
    });
    await tick();
    expect(statuses).toEqual(['SUBSCRIBED', 'CHANNEL_ERROR', 'SUBSCRIBED']);
    client.disconnect();
  });

  it('rejoins a refused channel with backoff 1, 2, 5, 10 s', async () => {
    FakeSocket.all = [];
    const { timers, advance } = manualTimers();
    const http = createHttp({ url: 'https://h', key: 'ANON' });
    const client = new RealtimeClient(http, { transport: FakeSocket, timers, vsn: '1.0.0' });
    const errors: string[] = [];
    client.channel('x').subscribe((s, e) => s === 'CHANNEL_ERROR' && errors.push(e?.code ?? ''));
    const socket = FakeSocket.all[0] as FakeSocket;
    expect(socket.url).toBe('wss://h/realtime/v1/websocket?apikey=ANON&vsn=1.0.0');
    socket.open();
    const joinsAt: number[] = [];
    let clock = 0;
    for (const wait of [0, 1000, 2000, 5000, 10_000]) {
      await advance(wait);
      clock += wait;
      await tick();
      const joins = (socket.sent as Array<Record<string, string>>).filter(
        (f) => f.event === 'phx_join',
      );
      const last = joins.at(-1) as Record<string, string>;
      if (joins.length > joinsAt.length) joinsAt.push(clock);
      socket.onmessage?.({
        data: JSON.stringify({
          topic: 'realtime:x',
          event: 'phx_reply',
          ref: last.ref,
          join_ref: last.join_ref,
          payload: { status: 'error', response: { reason: 'Unauthorized: nope' } },
        }),
      });
      await tick();
    }
    expect(joinsAt).toEqual([0, 1000, 3000, 8000, 18000]);
    expect(errors.every((c) => c === 'Unauthorized')).toBe(true);
    client.disconnect();
  });

  describe('after a sleep or a network change', () => {
    afterEach(() => {
      vi.unstubAllGlobals();
    });

    /** A page's `window` events (online, visibilitychange) in Node. */
    const pageEvents = () => {
      const target = new EventTarget();
      vi.stubGlobal('window', {});
      vi.stubGlobal('addEventListener', target.addEventListener.bind(target));
      return (type: string) => target.dispatchEvent(new Event(type));
    };

    /** A client with one joined channel on an open scripted socket. */
    const joined = async (options: { heartbeatIntervalMs?: number } = {}) => {
      FakeSocket.all = [];
      const manual = manualTimers();
      const http = createHttp({ url: 'http://h', key: 'ANON', accessToken: () => 'T' });
      const client = new RealtimeClient(http, {
        transport: FakeSocket,
        timers: manual.timers,
        ...options,
      });
      const statuses: string[] = [];
      client.channel('room').subscribe((s) => statuses.push(s));
      const socket = FakeSocket.all[0] as FakeSocket;
      socket.open();
      await tick();
      const [join] = socket.frames('phx_join');
      socket.reply(join?.[1] as string, join?.[0] as string, 'realtime:room', {
        postgres_changes: [],
      });
      await tick();
      expect(statuses).toEqual(['SUBSCRIBED']);
      return { client, socket, statuses, ...manual };
    };

    for (const event of ['visibilitychange', 'online']) {
      it(`on ${event}, checks an open socket with a heartbeat at once; no reply within the timeout: reconnects now and rejoins`, async () => {
        const fire = pageEvents();
        const { client, socket, statuses, advance } = await joined();
        await advance(5_000);
        expect(socket.frames('heartbeat')).toHaveLength(0);
        fire(event);
        expect(socket.frames('heartbeat')).toHaveLength(1);
        await advance(4_000);
        // Another wake: another heartbeat, whose reply now decides.
        fire(event);
        expect(socket.frames('heartbeat')).toHaveLength(2);
        await advance(9_999);
        expect(FakeSocket.all).toHaveLength(1);
        expect(statuses).toEqual(['SUBSCRIBED']);
        await advance(1); // the timeout (10 s), long before the next beat (25 s)
        expect(socket.readyState).toBe(3);
        expect(statuses).toEqual(['SUBSCRIBED', 'CHANNEL_ERROR']);
        expect(FakeSocket.all).toHaveLength(2); // at once, not after the backoff
        const next = FakeSocket.all[1] as FakeSocket;
        next.open();
        await tick();
        const [rejoin] = next.frames('phx_join');
        expect(rejoin?.[2]).toBe('realtime:room');
        next.reply(rejoin?.[1] as string, rejoin?.[0] as string, 'realtime:room', {
          postgres_changes: [],
        });
        await tick();
        expect(statuses).toEqual(['SUBSCRIBED', 'CHANNEL_ERROR', 'SUBSCRIBED']);
        client.disconnect();
      });
    }

    it('keeps a socket that answers the wake heartbeat, and beats on as before', async () => {
      const fire = pageEvents();
      const { client, socket, statuses, advance } = await joined();
      fire('online');
      const [beat] = socket.frames('heartbeat');
      socket.reply(beat?.[1] as string, null, 'phoenix');
      await advance(24_999);
      expect(FakeSocket.all).toHaveLength(1);
      expect(socket.frames('heartbeat')).toHaveLength(1);
      await advance(1); // the next beat, one interval after the wake's
      expect(socket.frames('heartbeat')).toHaveLength(2);
      expect(statuses).toEqual(['SUBSCRIBED']);
      expect(client.isConnected()).toBe(true);
      client.disconnect();
    });

    it('after a sleep, the late beat waits the timeout for its reply, not a whole interval', async () => {
      const { client, socket, statuses, advance, sleep } = await joined({
        heartbeatIntervalMs: 60_000,
      });
      sleep(5 * 60_000); // the device sleeps; the beat's timer fires on waking, late
      await advance(0);
      expect(socket.frames('heartbeat')).toHaveLength(1);
      await advance(9_999);
      expect(statuses).toEqual(['SUBSCRIBED']);
      await advance(1);
      expect(statuses).toEqual(['SUBSCRIBED', 'CHANNEL_ERROR']);
      expect(FakeSocket.all).toHaveLength(2);
      client.disconnect();
    });

    it('a beat on time still has the whole interval for its reply', async () => {
      const { client, socket, statuses, advance } = await joined({ heartbeatIntervalMs: 60_000 });
      await advance(60_000);
      expect(socket.frames('heartbeat')).toHaveLength(1);
      await advance(59_999);
      expect(statuses).toEqual(['SUBSCRIBED']);
      await advance(1);
      expect(statuses).toEqual(['SUBSCRIBED', 'CHANNEL_ERROR']);
      client.disconnect();
    });

    it('a closed socket reconnects on wake without waiting for its backoff', async () => {
      const fire = pageEvents();
      const { client, socket, advance } = await joined();
      socket.readyState = 3;
      socket.onclose?.({});
      await advance(500); // the backoff would wait 1 s
      expect(FakeSocket.all).toHaveLength(1);
      fire('visibilitychange');
      expect(FakeSocket.all).toHaveLength(2);
      client.disconnect();
    });
  });
});
