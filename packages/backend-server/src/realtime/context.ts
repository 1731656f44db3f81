import type { ServerConfig } from '../config/index';
import type { RealtimeSnapshot } from '../console/api-types';
import type { Database } from '../db/index';
import type { ChangeFeed } from './changes';
import type { Hub } from './hub';

/** What every part of the realtime service shares. */
export interface RealtimeContext {
  config: ServerConfig;
  db: Database;
  hub: Hub;
  feed: ChangeFeed;
  /** Open sockets (closed on shutdown). */
  connections: Set<{ terminate(): void; describe(): RealtimeSnapshot['connections'][number] }>;
  log(message: string): void;
}
