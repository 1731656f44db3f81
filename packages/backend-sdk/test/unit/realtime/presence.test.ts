import { describe, expect, it } from 'vitest';
import { PresenceStore } from '../../../src/realtime/presence';

const recorder = () => {
  const log: unknown[] = [];
  const store = new PresenceStore({
    join: (key, current, added) =>
      log.push(['join', key, current.length, added.map((p) => p.presence_ref)]),
    leave: (key, current, left) =>
      log.push(['leave', key, current.length, left.map((p) => p.presence_ref)]),
    sync: () => log.push('sync'),
  });
  return { store, log };
};

describe('PresenceStore', () => {
  it('applies a full state, then diffs, like the official client view', () => {
    const { store, log } = recorder();
    store.applyState({ u1: { metas: [{ phx_ref: 'A', name: 'ann' }] } });
    expect(store.state).toEqual({ u1: [{ name: 'ann', presence_ref: 'A' }] });
    store.applyDiff({
      joins: { u2: { metas: [{ phx_ref: 'B', name: 'bob' }] } },
      leaves: { u1: { metas: [{ phx_ref: 'A', name: 'ann' }] } },
    });
    expect(store.state).toEqual({ u2: [{ name: 'bob', presence_ref: 'B' }] });
    expect(log).toEqual([
      ['join', 'u1', 1, ['A']],
      'sync',
      ['join', 'u2', 1, ['B']],
      ['leave', 'u1', 0, ['A']],
      'sync',
    ]);
  });

  it('buffers diffs that arrive before the first state of a join', () => {
    const { store } = recorder();
    store.applyDiff({ joins: { u2: { metas: [{ phx_ref: 'B' }] } } });
    expect(store.state).toEqual({});
    store.applyState({ u1: { metas: [{ phx_ref: 'A' }] } });
    expect(Object.keys(store.state).sort()).toEqual(['u1', 'u2']);
  });

  it('replaces an updated presence (phx_ref_prev) and computes leaves on a new state', () => {
    const { store, log } = recorder();
    store.applyState({ u1: { metas: [{ phx_ref: 'A', s: 1 }] } });
    store.applyDiff({
      joins: { u1: { metas: [{ phx_ref: 'A2', phx_ref_prev: 'A', s: 2 }] } },
      leaves: { u1: { metas: [{ phx_ref: 'A', s: 1 }] } },
    });
    expect(store.state).toEqual({ u1: [{ s: 2, presence_ref: 'A2' }] });
    log.length = 0;
    store.reset();
    store.applyState({});
    expect(store.state).toEqual({});
    expect(log).toEqual([['leave', 'u1', 0, ['A2']], 'sync']);
  });
});
