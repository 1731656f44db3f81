import type { Hono } from 'hono';
import type { AppEnv, ServerContext } from '../service-module';
import { smsOutboxFor } from './outbox';

export { SMS_OUTBOX_SQL, type Sms, SmsOutbox, type SmsType, smsOutboxFor } from './outbox';
export { SmsProviderError, sendTwilio } from './twilio';

/**
 * `GET /_dev/sms`: the SMS outbox as JSON, newest first (`?to=` filters by number);
 * `DELETE /_dev/sms` empties it. Only with the service-role key, as the mail outbox.
 */
export function smsOutboxRoutes(routes: Hono<AppEnv>, ctx: ServerContext): void {
  const outbox = smsOutboxFor(ctx.config, ctx.db, ctx.log);
  routes.use('/sms', async (c, next) => {
    const { apiKey, token } = c.get('gateway');
    if (apiKey !== ctx.config.serviceRoleKey && token !== ctx.config.serviceRoleKey) {
      return c.json({ message: 'The service_role key is required' }, 401);
    }
    await next();
  });
  routes.get('/sms', async (c) => c.json(await outbox.list(c.req.query('to') || undefined)));
  routes.delete('/sms', async (c) => {
    await outbox.clear();
    return c.body(null, 204);
  });
}
