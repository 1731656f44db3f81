import { randomUUID } from 'node:crypto';
import type { ServerConfig } from '../config/index';
import type { RealtimeSnapshot } from '../console/api-types';
import type { ClusterLog } from './cluster-log';
import { LiveLog } from './log';

export { CLUSTER_LOG_SQL, ClusterLog, type ClusterLogOptions } from './cluster-log';
export {
  DEFAULT_LOG_CAPACITY,
  LiveLog,
  type LogEntry,
  type LogKind,
  type NewLogEntry,
} from './log';
export { requestLog } from './request-log';

/**
 * What the services of one running server expose to its console: the live log (requests,
 * function output, realtime events) and views of their state. One per server, found by its
 * config, as the mail outbox is.
 */
export interface DevTools {
  log: LiveLog;
  /** This server's name among the replicas of one database (in the cluster log's entries). */
  replica: string;
  /** On PostgreSQL, every replica's log (set at start); null on PGlite. */
  cluster: ClusterLog | null;
  /** Set by the realtime service when it runs. */
  realtime: (() => RealtimeSnapshot) | null;
}

const registry = new WeakMap<ServerConfig, DevTools>();

/** The dev tools of the server that owns `config`. */
export function devToolsFor(config: ServerConfig): DevTools {
  let tools = registry.get(config);
  if (!tools) {
    tools = {
      log: new LiveLog(config.console.logCapacity),
      replica: randomUUID().slice(0, 8),
      cluster: null,
      realtime: null,
    };
    registry.set(config, tools);
  }
  return tools;
}
