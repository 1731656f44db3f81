import type { ServiceModule } from '../service';
import { apiRoutes } from './api';
import { ChangeFeed } from './changes';
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
  platformSql: REALTIME_SQL,
  keyAuth: false,
  async create(server) {
    const ctx: RealtimeContext = {
      config: server.config,
      db: server.db,
      hub: new Hub(),
      feed: new ChangeFeed(server.db, server.log),
      connections: new Set(),
      log: server.log,
    };
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
      },
    };
  },
};
