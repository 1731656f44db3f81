import { randomBytes } from 'node:crypto';
import type { Database } from '../db/index';
import { type BusOptions, ClusterBus, type Liveness } from './cluster-bus';
import type { Hub, HubPeer, Member, Metas } from './hub';
import type { UserBroadcast } from './protocol';

/** A presence entry of a member on another replica. */
interface RemoteEntry {
  topic: string;
  private: boolean;
  key: string;
  meta: Record<string, unknown>;
}

/** [topic, private, key, ref, meta]: one tracked member in a `sync` message. */
type SyncEntry = [string, boolean, string, string, Record<string, unknown>];

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const obj = (v: unknown) =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/**
 * Realtime across replicas sharing one PostgreSQL. Each replica keeps delivering to its own
 * members directly; what its members broadcast or track is also published on the
 * {@link ClusterBus}, and what other replicas publish is delivered here:
 *
 * - `b` / `u`: a JSON or binary broadcast to a topic (the sender's socket was excluded on its
 *   own replica; everyone else here gets it, as the room's read permissions allow);
 * - `track` / `untrack`: one member's presence; `sync`: a replica's whole presence, sent in
 *   answer to `ask` (a replica that starts, or one that sees a live replica it has no state
 *   for);
 * - heartbeats: a replica whose row is older than `deadAfterMs` (and that has said nothing
 *   since) is dead: its members leave (a leave diff here).
 */
export class Cluster implements HubPeer {
  readonly bus: ClusterBus;
  private readonly refs = new WeakMap<Member, string>();
  /** replica → member ref → entry. */
  private readonly remote = new Map<string, Map<string, RemoteEntry>>();
  /** Replicas whose whole presence this replica has (a `sync` came). */
  private readonly known = new Set<string>();
  private readonly heard = new Map<string, number>();
  private readonly asked = new Map<string, number>();

  constructor(
    db: Database,
    private readonly hub: Hub,
    log: (message: string) => void,
    options: BusOptions = {},
  ) {
    this.bus = new ClusterBus(
      db,
      log,
      {
        message: (from, body) => this.receive(from, body),
        liveness: (state) => this.liveness(state),
      },
      options,
    );
  }

  async start(): Promise<void> {
    await this.bus.start();
    this.hub.peer = this;
    this.bus.send({ k: 'ask' });
  }

  /** Says goodbye (an empty presence: this replica's members leave everywhere), then stops. */
  async stop(): Promise<void> {
    this.bus.send({ k: 'sync', e: [] });
    this.hub.peer = null;
    await this.bus.stop();
  }

  broadcast(topic: string, isPrivate: boolean, payload: unknown): void {
    this.bus.send({ k: 'b', t: topic, p: isPrivate, d: payload });
  }

  broadcastUser(topic: string, isPrivate: boolean, b: UserBroadcast): void {
    const d = Buffer.from(b.payload).toString('base64');
    this.bus.send({ k: 'u', t: topic, p: isPrivate, e: b.event, c: b.encoding, d, x: b.metadata });
  }

  track(member: Member, meta: Record<string, unknown>, prevRef?: unknown): void {
    const body: Record<string, unknown> = {
      k: 'track',
      t: member.topic,
      p: member.private,
      key: member.presenceKey,
      ref: this.refOf(member),
      meta,
    };
    if (prevRef !== undefined) body.prev = prevRef;
    this.bus.send(body);
  }

  untrack(member: Member): void {
    this.bus.send({ k: 'untrack', ref: this.refOf(member) });
  }

  presence(topic: string, isPrivate: boolean): Metas {
    const state: Metas = {};
    for (const entries of this.remote.values()) {
      for (const e of entries.values()) {
        if (e.topic !== topic || e.private !== isPrivate) continue;
        state[e.key] = { metas: [...(state[e.key]?.metas ?? []), e.meta] };
      }
    }
    return state;
  }

  private refOf(member: Member): string {
    let ref = this.refs.get(member);
    if (!ref) {
      ref = randomBytes(9).toString('base64url');
      this.refs.set(member, ref);
    }
    return ref;
  }

  private receive(from: string, body: Record<string, unknown>): void {
    this.heard.set(from, Date.now());
    const topic = str(body.t);
    const isPrivate = body.p === true;
    switch (body.k) {
      case 'b':
        this.hub.deliver(topic, isPrivate, body.d);
        return;
      case 'u':
        this.hub.deliverUser(topic, isPrivate, {
          event: str(body.e),
          encoding: body.c === 1 ? 1 : 0,
          payload: Buffer.from(str(body.d), 'base64'),
          metadata: str(body.x),
        });
        return;
      case 'track':
        this.applyTrack(from, body);
        return;
      case 'untrack':
        this.applyUntrack(from, str(body.ref));
        return;
      case 'sync':
        this.applySync(from, Array.isArray(body.e) ? (body.e as SyncEntry[]) : []);
        return;
      case 'ask':
        if (body.to === undefined || body.to === this.bus.id) this.sendSync();
        return;
    }
  }

  private entriesOf(replica: string): Map<string, RemoteEntry> {
    let entries = this.remote.get(replica);
    if (!entries) {
      entries = new Map();
      this.remote.set(replica, entries);
    }
    return entries;
  }

  private applyTrack(from: string, body: Record<string, unknown>): void {
    const entries = this.entriesOf(from);
    const ref = str(body.ref);
    const entry: RemoteEntry = {
      topic: str(body.t),
      private: body.p === true,
      key: str(body.key),
      meta: obj(body.meta),
    };
    const old = entries.get(ref);
    entries.set(ref, entry);
    const joined =
      body.prev !== undefined ? { ...entry.meta, phx_ref_prev: body.prev } : entry.meta;
    this.hub.remoteDiff(
      entry.topic,
      entry.private,
      { [entry.key]: { metas: [joined] } },
      old ? { [old.key]: { metas: [old.meta] } } : {},
    );
  }

  private applyUntrack(from: string, ref: string): void {
    const entries = this.remote.get(from);
    const old = entries?.get(ref);
    if (!entries || !old) return;
    entries.delete(ref);
    this.hub.remoteDiff(old.topic, old.private, {}, { [old.key]: { metas: [old.meta] } });
  }

  /** Replaces a replica's presence: what is new joins, what is gone leaves. */
  private applySync(from: string, list: SyncEntry[]): void {
    this.known.add(from);
    this.asked.delete(from);
    const before = this.remote.get(from) ?? new Map<string, RemoteEntry>();
    const after = new Map<string, RemoteEntry>();
    for (const [topic, isPrivate, key, ref, meta] of list) {
      after.set(String(ref), {
        topic: String(topic),
        private: isPrivate === true,
        key: String(key),
        meta: obj(meta),
      });
    }
    this.remote.set(from, after);
    const changes: [RemoteEntry, 'joins' | 'leaves'][] = [];
    for (const [ref, e] of before) {
      const now = after.get(ref);
      if (!now || now.meta.phx_ref !== e.meta.phx_ref) changes.push([e, 'leaves']);
    }
    for (const [ref, e] of after) {
      if (before.get(ref)?.meta.phx_ref !== e.meta.phx_ref) changes.push([e, 'joins']);
    }
    this.emit(changes);
  }

  /** Groups presence changes per room into one diff each. */
  private emit(changes: [RemoteEntry, 'joins' | 'leaves'][]): void {
    const rooms = new Map<
      string,
      { topic: string; private: boolean; joins: Metas; leaves: Metas }
    >();
    for (const [e, side] of changes) {
      const roomKey = `${e.private}|${e.topic}`;
      let room = rooms.get(roomKey);
      if (!room) {
        room = { topic: e.topic, private: e.private, joins: {}, leaves: {} };
        rooms.set(roomKey, room);
      }
      const metas = room[side];
      metas[e.key] = { metas: [...(metas[e.key]?.metas ?? []), e.meta] };
    }
    for (const room of rooms.values()) {
      this.hub.remoteDiff(room.topic, room.private, room.joins, room.leaves);
    }
  }

  private sendSync(): void {
    const e: SyncEntry[] = this.hub
      .tracked()
      .map(({ member, meta }) => [
        member.topic,
        member.private,
        member.presenceKey,
        this.refOf(member),
        meta,
      ]);
    this.bus.send({ k: 'sync', e });
  }

  /** Dead replicas' members leave; live replicas this one knows nothing of are asked. */
  private liveness({ live }: Liveness): void {
    const now = Date.now();
    for (const replica of new Set([...this.remote.keys(), ...this.known])) {
      if (live.has(replica) || now - (this.heard.get(replica) ?? 0) < this.bus.deadAfterMs)
        continue;
      const entries = this.remote.get(replica);
      this.remote.delete(replica);
      this.known.delete(replica);
      this.heard.delete(replica);
      this.emit([...(entries?.values() ?? [])].map((e) => [e, 'leaves']));
    }
    for (const replica of live) {
      if (this.known.has(replica)) continue;
      if (now - (this.asked.get(replica) ?? 0) < this.bus.deadAfterMs) continue;
      this.asked.set(replica, now);
      this.bus.send({ k: 'ask', to: replica });
    }
  }
}
