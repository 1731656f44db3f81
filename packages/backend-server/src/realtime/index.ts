import { devToolsFor } from '../logs/index';
import type { ServiceModule } from '../service-module';
import { apiRoutes } from './api';
import { ChangeFeed } from './changes';
import { Cluster } from './cluster';
import { CLUSTER_SQL } from './cluster-bus';
import { createSocketEndpoint } from './connection';
import type { RealtimeContext } from './context';
import { listenDatabaseBroadcasts } from './db-broadcast';
import { Hub } from './hub';
import { REALTIME_SQL } from './sql';

const BASE_PATH = '/realtime/v1';

/**
 * Realtime (Phoenix channels) at `/realtime/v1`: the socket `/websocket?apikey=…&vsn=…`
 * with broadcast, presence and postgres_changes, and the REST broadcast API under `/api`.
 * Key-auth is done here (query `apikey` for the socket), not by the gateway.
 */
export const realtimeService: ServiceModule = {
  name: 'realtime',
  basePath: BASE_PATH,
  platformSql: REALTIME_SQL + CLUSTER_SQL,
  keyAuth: false,
  async create(server) {
    const tools = devToolsFor(server.config);
    const hub = new Hub((event, member) =>
      tools.log.push({
        kind: 'realtime',
        level: event,
        source: member.topic,
        message: `${event} ${member.private ? 'private ' : ''}${member.topic}`,
      }),
    );
    // Several replicas may share a PostgreSQL database (PGlite has one process by construction).
    const cluster = server.db.kind === 'postgres' ? new Cluster(server.db, hub, server.log) : null;
    const ctx: RealtimeContext = {
      config: server.config,
      db: server.db,
      hub,
      feed: new ChangeFeed(server.db, server.log, cluster?.bus.id),
      connections: new Set(),
      log: server.log,
    };
    tools.realtime = () => ({
      connections: [...ctx.connections].map((c) => c.describe()),
      channels: ctx.hub.snapshot(),
    });
    // The heartbeat row first: captured rows wait for every replica that has one.
    await cluster?.start();
    await ctx.feed.start();
    const stopBroadcasts = await listenDatabaseBroadcasts(ctx);
    const socket = createSocketEndpoint(ctx, BASE_PATH);
    return {
      routes: apiRoutes(ctx),
      upgrade: socket.upgrade,
      async close() {
        await socket.close();
        await stopBroadcasts().catch(() => {});
        await ctx.feed.stop();
        await cluster?.stop();
      },
    };
  },
};
