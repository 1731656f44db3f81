import { Hono } from 'hono';
import { devToolsFor, requestLog } from '../logs/index';
import type { AppEnv, ServerContext, ServiceInstance, ServiceModule } from '../service-module';
import { clientAddressMiddleware } from './client-address';
import { cors, gateway } from './gateway';

/** The gateway's answer for a path no service owns. */
export const NO_ROUTE = { message: 'no Route matched with those values' };

/**
 * The whole HTTP surface: each service's routes under its base path, behind the gateway
 * (CORS, key-auth, Authorization fallback). Web `Request`/`Response` are the seam, so
 * tests can drive it through `app.request()` without a socket.
 */
export function createApp(
  ctx: ServerContext,
  services: readonly { module: ServiceModule; instance: ServiceInstance }[],
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', clientAddressMiddleware(ctx.config.trustedProxies));
  // Every request goes to the live log (the console's Logs screen), first and last.
  app.use('*', requestLog(devToolsFor(ctx.config).log, ctx.config.log));
  for (const { module, instance } of services) {
    const pattern = `${module.basePath}/*`;
    if (module.cors !== false) app.use(pattern, cors());
    app.use(
      pattern,
      gateway(ctx.config, {
        keyAuth: module.keyAuth,
        basePath: module.basePath,
        ...(module.openPaths ? { openPaths: module.openPaths } : {}),
      }),
    );
    app.route(module.basePath, instance.routes);
  }
  app.notFound((c) => c.json(NO_ROUTE, 404));
  app.onError((error, c) => {
    // Never a stack trace to a client; the details go to the server's console.
    console.error(`[backend-server] ${c.req.method} ${c.req.path}:`, error);
    return c.json({ message: 'Internal Server Error' }, 500);
  });
  return app;
}
