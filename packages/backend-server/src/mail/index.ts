import { Hono } from 'hono';
import type { AppEnv, ServiceModule } from '../service-module';
import { smsOutboxRoutes } from '../sms/index';
import { outboxFor } from './outbox';
import { postedMail } from './post';

export {
  MAIL_OUTBOX_SQL,
  type Mail,
  type MailType,
  Outbox,
  type OutgoingMail,
  outboxFor,
} from './outbox';
export { authMail } from './templates';

/**
 * `GET /_dev/mail`: the outbox as JSON, newest first (`?to=` filters by address);
 * `DELETE /_dev/mail` empties it; `POST /_dev/mail` {to, subject, text, html?, from?} records a
 * mail sent by a project's function (type `app`: 202 `{queued: true}`, relayed through SMTP
 * when configured, 400 `{message}` for a bad body). Only with the service-role key (apikey or
 * bearer).
 * The SMS outbox sits beside it at `/_dev/sms` (see `../sms`).
 */
export const devMailService: ServiceModule = {
  name: 'dev-mail',
  basePath: '/_dev',
  keyAuth: false,
  create(ctx) {
    const outbox = outboxFor(ctx.config, ctx.db, ctx.log);
    const routes = new Hono<AppEnv>();
    routes.use('/mail', async (c, next) => {
      const { keyRole, token } = c.get('gateway');
      if (keyRole !== 'service_role' && token !== ctx.config.serviceRoleKey) {
        return c.json({ message: 'The service_role key is required' }, 401);
      }
      await next();
    });
    routes.get('/mail', async (c) => c.json(await outbox.list(c.req.query('to') || undefined)));
    routes.post('/mail', async (c) => {
      const body = await c.req.json().catch(() => undefined);
      const mail = postedMail(body);
      if (typeof mail === 'string') return c.json({ message: mail }, 400);
      await outbox.send(mail);
      return c.json({ queued: true }, 202);
    });
    routes.delete('/mail', async (c) => {
      await outbox.clear();
      return c.body(null, 204);
    });
    smsOutboxRoutes(routes, ctx);
    return { routes, close: async () => outbox.close() };
  },
};
