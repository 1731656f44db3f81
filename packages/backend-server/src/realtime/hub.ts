import { randomBytes } from 'node:crypto';
import type { RealtimeSnapshot } from '../console/api-types';
import {
  encode,
  encodeUserBroadcast,
  type Frame,
  sharedText,
  type UserBroadcast,
  userBroadcastJson,
  type Vsn,
} from './protocol';

/** The socket side a channel member writes to. */
export interface Outlet {
  readonly vsn: Vsn;
  send(frame: Frame): void;
}

/** One joined channel of one socket. */
export interface Member {
  outlet: Outlet;
  /** Full topic, `realtime:<name>`. */
  topic: string;
  joinRef: string;
  private: boolean;
  selfBroadcast: boolean;
  presenceKey: string;
  /** Private channels: what RLS on realtime.messages allowed (public: true). */
  broadcastRead: boolean;
  presenceRead: boolean;
  /** Ids of stored messages this member got by replay: not sent again live. */
  replayed?: ReadonlySet<string>;
}

interface PresenceEntry {
  member: Member;
  meta: Record<string, unknown>;
}

interface Room {
  members: Set<Member>;
  /** presence key → tracked entries, in tracking order. */
  presence: Map<string, PresenceEntry[]>;
}

export type Metas = Record<string, { metas: Record<string, unknown>[] }>;

/**
 * The other replicas (cluster.ts, on PostgreSQL): what this Hub's members send or track is
 * published to them; what they publish comes back through the Hub's `deliver…` and
 * `remoteDiff` methods.
 */
export interface HubPeer {
  broadcast(topic: string, isPrivate: boolean, payload: unknown): void;
  broadcastUser(topic: string, isPrivate: boolean, b: UserBroadcast): void;
  /** `prevRef`: the ref of the meta this track replaces, if any. */
  track(member: Member, meta: Record<string, unknown>, prevRef?: unknown): void;
  untrack(member: Member, meta: Record<string, unknown>): void;
  /** Presence of the room's members on other replicas, grouped by key. */
  presence(topic: string, isPrivate: boolean): Metas;
}

const roomKey = (m: { private: boolean; topic: string }) =>
  `${m.private ? 'private' : 'public'}|${m.topic}`;

/** A new Phoenix.Presence-style ref. */
const presenceRef = () => `F${randomBytes(9).toString('base64url')}`;

/**
 * Channel membership, broadcast fan-out and presence for every topic. Public and private
 * channels of the same name are separate rooms, as on the hosted service.
 */
export class Hub {
  private readonly rooms = new Map<string, Room>();
  /** The other replicas, when the server runs as one of several (see cluster.ts). */
  peer: HubPeer | null = null;

  /** `observer` hears every join and leave (the console's live log). */
  constructor(private readonly observer?: (event: 'join' | 'leave', member: Member) => void) {}

  add(member: Member): void {
    this.observer?.('join', member);
    const key = roomKey(member);
    let room = this.rooms.get(key);
    if (!room) {
      room = { members: new Set(), presence: new Map() };
      this.rooms.set(key, room);
    }
    room.members.add(member);
  }

  /** Removes a member and its presence (announcing the leave). */
  remove(member: Member): void {
    const key = roomKey(member);
    const room = this.rooms.get(key);
    if (!room?.members.has(member)) return;
    this.observer?.('leave', member);
    room.members.delete(member);
    this.untrack(member);
    if (room.members.size === 0) this.rooms.delete(key);
  }

  /** Every room: its topic, members and presence (the console's Realtime screen). */
  snapshot(): RealtimeSnapshot['channels'] {
    return [...this.rooms.entries()].map(([key, room]) => {
      const presence: Record<string, Record<string, unknown>[]> = {};
      for (const [presenceKey, entries] of room.presence) {
        presence[presenceKey] = entries.map((e) => e.meta);
      }
      return {
        topic: key.slice(key.indexOf('|') + 1),
        private: key.startsWith('private|'),
        members: room.members.size,
        presence,
      };
    });
  }

  /** Members of a room. */
  membersOf(topic: string, isPrivate: boolean): ReadonlySet<Member> {
    return this.rooms.get(roomKey({ topic, private: isPrivate }))?.members ?? new Set();
  }

  /**
   * Fans a JSON broadcast payload (`{type, event, payload[, meta]}`) out to a room on every
   * replica, excluding `from` unless it asked for its own messages.
   */
  broadcast(topic: string, isPrivate: boolean, payload: unknown, from?: Member): void {
    this.deliver(topic, isPrivate, payload, from);
    this.peer?.broadcast(topic, isPrivate, payload);
  }

  /** A user broadcast to a room on every replica (see {@link deliverUser}). */
  broadcastUser(topic: string, isPrivate: boolean, b: UserBroadcast, from?: Member): void {
    this.deliverUser(topic, isPrivate, b, from);
    this.peer?.broadcastUser(topic, isPrivate, b);
  }

  /** {@link broadcast} to this replica's members only (database broadcasts reach each replica). */
  deliver(topic: string, isPrivate: boolean, payload: unknown, from?: Member): void {
    const members = this.rooms.get(roomKey({ topic, private: isPrivate }))?.members;
    if (!members) return;
    const frames: Partial<Record<Vsn, Frame>> = {};
    const id = (payload as { meta?: { id?: unknown } } | null)?.meta?.id;
    for (const member of members) {
      if (!member.broadcastRead || (member === from && !member.selfBroadcast)) continue;
      if (typeof id === 'string' && member.replayed?.has(id)) continue;
      const vsn = member.outlet.vsn;
      frames[vsn] ??= sharedText(encode(vsn, null, null, topic, 'broadcast', payload));
      member.outlet.send(frames[vsn]);
    }
  }

  /** Fans a user broadcast out here: kind 4 frames to v2 sockets, JSON to v1 sockets. */
  deliverUser(topic: string, isPrivate: boolean, b: UserBroadcast, from?: Member): void {
    const members = this.rooms.get(roomKey({ topic, private: isPrivate }))?.members;
    if (!members) return;
    let binary: Buffer | null = null;
    let v1: Frame | null | undefined;
    for (const member of members) {
      if (!member.broadcastRead || (member === from && !member.selfBroadcast)) continue;
      if (member.outlet.vsn === '2.0.0') {
        binary ??= encodeUserBroadcast(topic, b);
        member.outlet.send(binary);
      } else {
        if (v1 === undefined) {
          const json = userBroadcastJson(b);
          v1 = json ? sharedText(encode('1.0.0', null, null, topic, 'broadcast', json)) : null;
        }
        if (v1) member.outlet.send(v1);
      }
    }
  }

  /** Tracks (or re-tracks) a member's presence; returns false when nothing changed. */
  track(member: Member, state: Record<string, unknown>): boolean {
    const room = this.rooms.get(roomKey(member));
    if (!room) return false;
    const entries = room.presence.get(member.presenceKey) ?? [];
    const existing = entries.find((e) => e.member === member);
    const meta = { ...state, phx_ref: presenceRef() };
    if (existing) {
      const { phx_ref: oldRef, ...oldState } = existing.meta;
      if (JSON.stringify(oldState) === JSON.stringify(state)) return false;
      const leaves = { [member.presenceKey]: { metas: [existing.meta] } };
      existing.meta = meta;
      const joined = { ...meta, phx_ref_prev: oldRef };
      this.diff(member, { [member.presenceKey]: { metas: [joined] } }, leaves);
      this.peer?.track(member, meta, oldRef);
      return true;
    }
    entries.push({ member, meta });
    room.presence.set(member.presenceKey, entries);
    this.diff(member, { [member.presenceKey]: { metas: [meta] } }, {});
    this.peer?.track(member, meta);
    return true;
  }

  /** Stops tracking a member's presence (announcing the leave). */
  untrack(member: Member): void {
    const room = this.rooms.get(roomKey(member));
    const entries = room?.presence.get(member.presenceKey);
    if (!room || !entries) return;
    const index = entries.findIndex((e) => e.member === member);
    if (index < 0) return;
    const [entry] = entries.splice(index, 1);
    if (entries.length === 0) room.presence.delete(member.presenceKey);
    if (!entry) return;
    this.diff(member, {}, { [member.presenceKey]: { metas: [entry.meta] } });
    this.peer?.untrack(member, entry.meta);
  }

  /** The room's presence (on every replica) in the Phoenix.Presence grouped shape. */
  presenceState(member: Member): Metas {
    const room = this.rooms.get(roomKey(member));
    const state: Metas = {};
    for (const [key, entries] of room?.presence ?? []) {
      state[key] = { metas: entries.map((e) => e.meta) };
    }
    for (const [key, { metas }] of Object.entries(
      this.peer?.presence(member.topic, member.private) ?? {},
    )) {
      state[key] = { metas: [...(state[key]?.metas ?? []), ...metas] };
    }
    return state;
  }

  /** Every tracked member of this replica and its meta (a replica's whole presence). */
  tracked(): { member: Member; meta: Record<string, unknown> }[] {
    return [...this.rooms.values()].flatMap((room) => [...room.presence.values()].flat());
  }

  /** A presence diff of members on another replica, to this replica's members of the room. */
  remoteDiff(topic: string, isPrivate: boolean, joins: Metas, leaves: Metas): void {
    this.diff({ topic, private: isPrivate }, joins, leaves);
  }

  private diff(member: { topic: string; private: boolean }, joins: Metas, leaves: Metas): void {
    const members = this.rooms.get(roomKey(member))?.members;
    if (!members) return;
    const payload = { joins, leaves };
    const frames: Partial<Record<Vsn, Frame>> = {};
    for (const m of members) {
      if (!m.presenceRead) continue;
      const vsn = m.outlet.vsn;
      frames[vsn] ??= sharedText(encode(vsn, null, null, member.topic, 'presence_diff', payload));
      m.outlet.send(frames[vsn]);
    }
  }
}
