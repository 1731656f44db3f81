import type { LogEntry } from '@app/backend-server/console-api';
import { describe, expect, it } from 'vitest';
import { LogStore, matches, takeLines } from '../../../src/lib/log-store';

const entry = (seq: number, over: Partial<LogEntry> = {}): LogEntry => ({
  seq,
  time: seq,
  kind: 'request',
  method: 'GET',
  path: `/rest/v1/t${seq}`,
  status: 200,
  ...over,
});

describe('LogStore', () => {
  it('keeps the newest entries up to its capacity and skips ones it has', () => {
    const store = new LogStore(3, (fn) => fn());
    store.add([entry(1), entry(2)]);
    store.add([entry(2), entry(3), entry(4)]);
    expect(store.entries.map((e) => e.seq)).toEqual([2, 3, 4]);
    expect(store.lastSeq).toBe(4);
  });

  it('tells listeners once per scheduled frame, however many batches came', () => {
    const frames: (() => void)[] = [];
    const store = new LogStore(100, (fn) => frames.push(fn));
    let calls = 0;
    store.subscribe(() => {
      calls += 1;
    });
    store.add([entry(1)]);
    store.add([entry(2)]);
    store.add([entry(3)]);
    expect(frames).toHaveLength(1);
    frames[0]?.();
    expect(calls).toBe(1);
    expect(store.version).toBe(1);
  });
});

describe('takeLines and matches', () => {
  it('splits complete lines and keeps the rest', () => {
    expect(takeLines('[1]\n[2]\n[3')).toEqual({ lines: ['[1]', '[2]'], rest: '[3' });
  });

  it('filters by kind, method, status class and text', () => {
    const none = { kind: '', method: '', status: '', text: '' };
    expect(matches(entry(1), none)).toBe(true);
    expect(matches(entry(1, { status: 404 }), { ...none, status: '4xx' })).toBe(true);
    expect(matches(entry(1), { ...none, status: '4xx' })).toBe(false);
    expect(matches(entry(1), { ...none, method: 'POST' })).toBe(false);
    expect(matches(entry(7), { ...none, text: 'T7' })).toBe(true);
    expect(
      matches(entry(1, { kind: 'function', message: 'hi' }), {
        ...none,
        kind: 'function',
        text: 'hi',
      }),
    ).toBe(true);
  });
});
