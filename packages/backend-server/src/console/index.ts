import { type Context, Hono } from 'hono';
import { RATE_LIMIT_SQL } from '../auth/rate-limit';
import type { ServerConfig } from '../config/index';
import { clientAddress } from '../http/client-address';
import type { AppEnv, ServiceModule } from '../service-module';
import { consoleApi } from './api';
import type { ApiError, LoginResponse } from './api-types';
import { findConsoleAssets, serveAsset } from './assets';
import { CONSOLE_SQL, sharedConsoleToken } from './cluster';
import { consoleRefusal, LoginThrottle, originGuard, sameSecret, tokenGuard } from './guard';

export { consoleRefusal, isLoopback, TOKEN_HEADER } from './guard';

const BASE_PATH = '/_console';

/**
 * The console's address for the person who started the server: the secret rides in the
 * fragment, which browsers never send to a server (so it stays out of logs and referrers);
 * the console page keeps it and sends it as `x-console-token`. Null when the console is not
 * served.
 *
 * @example
 * consoleLink(config, 'mail') // http://127.0.0.1:54321/_console/mail#token=…
 */
export function consoleLink(config: ServerConfig, screen = ''): string | null {
  if (consoleRefusal(config)) return null;
  return `${config.url}${BASE_PATH}/${screen}#token=${config.console.token}`;
}

/**
 * The local console at `/_console`: the built console app, and its API under
 * `/_console/api` guarded by the per-process secret (see guard.ts and the README). Served
 * only on loopback unless `console.remote` and a password say otherwise. No CORS: only
 * the console's own pages can read its answers.
 */
export const consoleService: ServiceModule = {
  name: 'console',
  basePath: BASE_PATH,
  keyAuth: false,
  cors: false,
  platformSql: RATE_LIMIT_SQL + CONSOLE_SQL,
  async create(ctx) {
    const { config } = ctx;
    const routes = new Hono<AppEnv>();
    const refusal = consoleRefusal(config);
    if (refusal) {
      routes.all('*', (c) => c.json({ message: refusal } satisfies ApiError, 403));
      return { routes };
    }
    const assets = findConsoleAssets(config.console.assetsDir);
    const api = consoleApi(ctx);
    if (ctx.db.kind === 'postgres' && !config.console.tokenConfigured)
      config.console.token = await sharedConsoleToken(ctx.db, config.console.token);
    const throttle = new LoginThrottle(ctx.db);

    routes.use('*', originGuard(config));
    routes.post('/api/login', async (c) => {
      const password = config.console.password;
      if (!password) {
        return c.json(
          {
            message: 'No console password is set: use the link printed at start.',
          } satisfies ApiError,
          404,
        );
      }
      const address = clientAddress(c);
      if (await throttle.blocked(address)) {
        return c.json(
          { message: 'Too many wrong passwords: wait a minute.' } satisfies ApiError,
          429,
        );
      }
      const body = (await c.req.json().catch(() => null)) as { password?: unknown } | null;
      if (!sameSecret(typeof body?.password === 'string' ? body.password : null, password)) {
        await throttle.fail(address);
        return c.json({ message: 'Wrong password' } satisfies ApiError, 401);
      }
      return c.json({ token: config.console.token } satisfies LoginResponse, 200, {
        'cache-control': 'no-store',
      });
    });
    routes.use('/api/*', tokenGuard(config));
    routes.route('/api', api.routes);
    const page = (c: Context<AppEnv>) =>
      c.req.path === BASE_PATH
        ? c.redirect(`${BASE_PATH}/`, 308)
        : serveAsset(assets, c.req.path.slice(BASE_PATH.length + 1));
    routes.get('/', page);
    routes.get('/*', page);
    return { routes, close: async () => api.close() };
  },
};
