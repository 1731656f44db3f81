import { randomUUID } from 'node:crypto';
import type { JwtClaims } from '../http/jwt';
import { readPermissions, type TopicContext, writePermission } from './authorization';
import type { ChangeSubscriber } from './changes';
import type { RealtimeContext } from './context';
import type { Member, Outlet } from './hub';
import { encode as encodeFor, type InMessage, type UserBroadcast } from './protocol';
import { REPLAY_FAILED, replayRequest, type StoredBroadcast, storedBroadcasts } from './replay';
import { type ChangeBinding, legacyParams, parseBinding } from './subscription';
import { checkToken, secondsLeft } from './tokens';

/** What a channel needs from its socket. */
export interface ChannelSocket {
  readonly ctx: RealtimeContext;
  readonly outlet: Outlet;
  /** The token the socket connected with. */
  readonly connectToken: string;
  readonly headers: Record<string, string>;
  reply(msg: InMessage, status: 'ok' | 'error', response: Record<string, unknown>): void;
  /** Forgets a channel that stopped. */
  detach(channel: Channel): void;
}

/** Booleans as the hosted service reads them ("flexible booleans"). */
export const flag = (v: unknown): boolean => v === true || v === 'true' || v === 1 || v === '1';

const asObject = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** One joined `realtime:<name>` channel of one socket. */
export class Channel {
  readonly member: Member;
  private token: string;
  private claims: JwtClaims;
  private readonly ack: boolean;
  private presenceEnabled: boolean;
  private broadcastWrite: boolean | null = null;
  private presenceWrite: boolean | null = null;
  private changes: ChangeSubscriber | null = null;
  private expiry: NodeJS.Timeout | null = null;
  private stopped = false;

  private constructor(
    private readonly socket: ChannelSocket,
    readonly subTopic: string,
    member: Member,
    token: string,
    claims: JwtClaims,
    config: Record<string, unknown>,
  ) {
    this.member = member;
    this.token = token;
    this.claims = claims;
    this.ack = flag(asObject(config.broadcast).ack);
    this.presenceEnabled = flag(asObject(config.presence).enabled);
  }

  /** Handles `phx_join`; resolves to the joined channel, or null after an error reply. */
  static async join(socket: ChannelSocket, msg: InMessage): Promise<Channel | null> {
    const { ctx } = socket;
    const subTopic = msg.topic.slice('realtime:'.length);
    const fail = (reason: string) => {
      socket.reply(msg, 'error', { reason });
      return null;
    };
    if (subTopic === '') return fail('TopicNameRequired: You must provide a topic name');
    const payload = asObject(msg.payload);
    const isNewApi = 'config' in payload;
    const config = asObject(payload.config);
    const sent = payload.access_token ?? payload.user_token;
    const token = typeof sent === 'string' && !sent.startsWith('sb_') ? sent : socket.connectToken;
    const checked = await checkToken(token, ctx.config);
    if (!checked.ok) return fail(`${checked.error.code}: ${checked.error.message}`);
    const isPrivate = flag(config.private);
    const presence = asObject(config.presence);
    const presenceKey =
      typeof presence.key === 'string' && presence.key !== '' ? presence.key : randomUUID();
    const member: Member = {
      outlet: socket.outlet,
      topic: msg.topic,
      joinRef: msg.joinRef ?? msg.ref ?? '',
      private: isPrivate,
      selfBroadcast: flag(asObject(config.broadcast).self),
      presenceKey,
      broadcastRead: true,
      presenceRead: true,
    };
    const channel = new Channel(socket, subTopic, member, token, checked.claims, config);
    if (isPrivate) {
      const read = await readPermissions(
        ctx.db,
        channel.topicContext(),
        channel.presenceEnabled ? ['broadcast', 'presence'] : ['broadcast'],
      );
      if (!read.broadcast && !read.presence) {
        return fail(
          `Unauthorized: You do not have permissions to read from this Channel topic: ${subTopic}`,
        );
      }
      member.broadcastRead = read.broadcast;
      member.presenceRead = channel.presenceEnabled ? read.presence : false;
    }
    const replay = replayRequest(asObject(config.broadcast), isPrivate);
    if (!replay.ok) return fail(replay.reason);
    let replayed: StoredBroadcast[] = [];
    if (replay.request) {
      if (!member.broadcastRead) {
        return fail(
          `Unauthorized: You do not have permissions to read from this Channel topic: ${subTopic}`,
        );
      }
      try {
        replayed = await storedBroadcasts(ctx.db, subTopic, replay.request);
      } catch (error) {
        ctx.log(`broadcast replay failed: ${String(error)}`);
        return fail(REPLAY_FAILED);
      }
      member.replayed = new Set(replayed.map((m) => m.id));
    }

    // postgres_changes: the reply echoes every entry with its id; problems come as `system`.
    const entries = isNewApi
      ? (Array.isArray(config.postgres_changes) ? config.postgres_changes : [])
          .filter((e) => e !== null && e !== undefined)
          .map(asObject)
      : [legacyParams(subTopic)];
    const parsed = entries.map(parseBinding);
    const bindings = parsed.flatMap((p) => (p.ok ? [p.binding] : []));
    const replyEntries = entries.map((params, i) => {
      const p = parsed[i];
      return { ...params, id: p?.ok ? p.binding.id : 0 };
    });
    let changesError: string | null = null;
    const firstError = parsed.find((p) => !p.ok);
    if (firstError && !firstError.ok) changesError = firstError.error;
    else if (bindings.length > 0)
      changesError = await channel.subscribeChanges(bindings, !isNewApi);

    ctx.hub.add(member);
    channel.armExpiry();
    socket.reply(msg, 'ok', { postgres_changes: isNewApi ? replyEntries : [] });
    for (const m of replayed) {
      const meta = { replayed: true, id: m.id };
      channel.push('broadcast', { type: 'broadcast', event: m.event, payload: m.payload, meta });
    }
    if (entries.length > 0) {
      channel.push('system', {
        extension: 'postgres_changes',
        status: changesError ? 'error' : 'ok',
        message: changesError ?? 'Subscribed to PostgreSQL',
        channel: subTopic,
      });
    }
    if (channel.presenceEnabled && member.presenceRead) {
      channel.push('presence_state', ctx.hub.presenceState(member));
    }
    return channel;
  }

  private topicContext(): TopicContext {
    return {
      role: String(this.claims.role),
      claims: this.claims,
      topic: this.subTopic,
      headers: this.socket.headers,
    };
  }

  private async subscribeChanges(bindings: ChangeBinding[], legacy: boolean) {
    const sub: ChangeSubscriber = {
      outlet: this.member.outlet,
      topic: this.member.topic,
      legacy,
      bindings,
      auth: () => ({ role: String(this.claims.role), claims: this.claims }),
    };
    try {
      const error = await this.socket.ctx.feed.subscribe(sub);
      if (!error) this.changes = sub;
      return error;
    } catch (error) {
      this.socket.ctx.log(`postgres_changes subscribe failed: ${String(error)}`);
      return 'Unable to subscribe to changes with given parameters';
    }
  }

  /** A push from this channel (carries the join ref). */
  push(event: string, payload: unknown): void {
    if (this.stopped) return;
    const { outlet, joinRef, topic } = this.member;
    outlet.send(encodeFor(outlet.vsn, joinRef, null, topic, event, payload));
  }

  /** A JSON broadcast push from the client. */
  async broadcast(msg: InMessage): Promise<void> {
    const payload = msg.payload;
    if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return;
    if (!(await this.mayWrite('broadcast'))) return;
    const size = JSON.stringify(payload).length;
    if (size > this.socket.ctx.config.realtime.maxPayloadBytes) {
      if (this.ack) this.socket.reply(msg, 'error', { reason: 'payload_size_exceeded' });
      return;
    }
    this.socket.ctx.hub.broadcast(this.member.topic, this.member.private, payload, this.member);
    if (this.ack) this.socket.reply(msg, 'ok', {});
  }

  /** A binary (kind 3) broadcast push from the client. */
  async userBroadcast(msg: InMessage, b: UserBroadcast): Promise<void> {
    if (!(await this.mayWrite('broadcast'))) return;
    if (b.payload.length > this.socket.ctx.config.realtime.maxPayloadBytes) {
      if (this.ack) this.socket.reply(msg, 'error', { reason: 'payload_size_exceeded' });
      return;
    }
    this.socket.ctx.hub.broadcastUser(this.member.topic, this.member.private, b, this.member);
    if (this.ack) this.socket.reply(msg, 'ok', {});
  }

  /** `presence` track/untrack. */
  async presence(msg: InMessage): Promise<void> {
    const payload = asObject(msg.payload);
    const event = typeof payload.event === 'string' ? payload.event.toLowerCase() : '';
    const { hub } = this.socket.ctx;
    if (event === 'track') {
      const state = payload.payload ?? {};
      if (!state || typeof state !== 'object' || Array.isArray(state)) {
        this.socket.reply(msg, 'error', { reason: 'Presence track payload must be a map' });
        return;
      }
      if (!(await this.mayWrite('presence'))) {
        this.socket.reply(msg, 'error', {});
        return;
      }
      if (this.member.private && !this.presenceEnabled) {
        // Presence turned on by this track: its read permission was not checked at join.
        const read = await readPermissions(this.socket.ctx.db, this.topicContext(), ['presence']);
        this.member.presenceRead = read.presence;
      }
      this.presenceEnabled = true;
      hub.track(this.member, state as Record<string, unknown>);
      this.socket.reply(msg, 'ok', {});
    } else if (event === 'untrack') {
      hub.untrack(this.member);
      this.socket.reply(msg, 'ok', {});
    } else {
      this.socket.reply(msg, 'error', {});
    }
  }

  /** `access_token`: re-validates; expired, invalid or read permission lost → shutdown. */
  async accessToken(msg: InMessage): Promise<void> {
    const sent = asObject(msg.payload).access_token;
    if (typeof sent !== 'string' || sent.startsWith('sb_') || sent === this.token) return;
    const checked = await checkToken(sent, this.socket.ctx.config);
    if (!checked.ok) return this.shutdown(checked.error.message);
    const hadRead = { broadcast: this.member.broadcastRead, presence: this.member.presenceRead };
    this.token = sent;
    this.claims = checked.claims;
    this.broadcastWrite = null;
    this.presenceWrite = null;
    if (this.member.private) {
      const read = await readPermissions(
        this.socket.ctx.db,
        this.topicContext(),
        this.presenceEnabled ? ['broadcast', 'presence'] : ['broadcast'],
      );
      if ((hadRead.broadcast && !read.broadcast) || (hadRead.presence && !read.presence)) {
        return this.shutdown(
          `You no longer have permission to read from this Channel topic: ${this.subTopic}`,
        );
      }
    }
    this.armExpiry();
  }

  /** `phx_leave`: ok reply, then phx_close. */
  leave(msg: InMessage): void {
    this.socket.reply(msg, 'ok', {});
    this.close();
  }

  /** Stops the channel with a `system` error, then phx_close (hosted `shutdown_response`). */
  shutdown(message: string): void {
    this.push('system', { extension: 'system', status: 'error', message, channel: this.subTopic });
    this.close();
  }

  /** Sends phx_close and releases everything. */
  close(): void {
    if (this.stopped) return;
    const { outlet, joinRef, topic } = this.member;
    outlet.send(encodeFor(outlet.vsn, joinRef, joinRef, topic, 'phx_close', {}));
    this.dispose();
  }

  /** Releases the channel without telling the client (its socket is gone). */
  dispose(): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.expiry) clearTimeout(this.expiry);
    this.socket.ctx.hub.remove(this.member);
    if (this.changes) this.socket.ctx.feed.unsubscribe(this.changes);
    this.socket.detach(this);
  }

  private async mayWrite(extension: 'broadcast' | 'presence'): Promise<boolean> {
    if (!this.member.private) return true;
    const cached = extension === 'broadcast' ? this.broadcastWrite : this.presenceWrite;
    if (cached !== null) return cached;
    const allowed = await writePermission(this.socket.ctx.db, this.topicContext(), extension);
    if (extension === 'broadcast') this.broadcastWrite = allowed;
    else this.presenceWrite = allowed;
    return allowed;
  }

  /** The token's expiry stops the channel, as the hosted token confirmation does. */
  private armExpiry(): void {
    if (this.expiry) clearTimeout(this.expiry);
    const ms = Math.max(0, secondsLeft(this.claims) * 1000);
    // Timers cannot wait longer than ~24.8 days; tokens that live longer are re-armed.
    this.expiry = setTimeout(() => void this.confirmToken(), Math.min(ms, 2 ** 31 - 1));
    this.expiry.unref();
  }

  private async confirmToken(): Promise<void> {
    const checked = await checkToken(this.token, this.socket.ctx.config);
    if (!checked.ok) this.shutdown(checked.error.message);
    else this.armExpiry();
  }
}
