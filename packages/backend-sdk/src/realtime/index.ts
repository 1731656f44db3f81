/**
 * `@app/backend-sdk/realtime` — Phoenix channels: postgres_changes, broadcast, presence.
 */

export type { Timers } from '../timers';
export {
  type BroadcastMessage,
  type ChannelConfig,
  type ChannelState,
  type PostgresChange,
  type PostgresChangesFilter,
  RealtimeChannel,
  type SubscribeStatus,
} from './channel';
export {
  RealtimeClient,
  type RealtimeOptions,
  type WebSocketConstructor,
  type WebSocketLike,
} from './client';
export { RealtimeError } from './errors';
export { PostgresFilter, pgFilter } from './postgres';
export type { Presence, PresenceState } from './presence';
export type { Vsn } from './serializer';
export { workerTimers } from './timers';
