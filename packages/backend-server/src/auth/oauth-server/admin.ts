import type { Context, Hono } from 'hono';
import type { AppEnv } from '../../service-module';
import { readBody } from '../body';
import type { AuthContext } from '../context';
import { badRequest, forbidden, notFound } from '../errors';
import { isUuid } from '../guard';
import { pageHeaders, pageParams } from '../routes/util';
import {
  type ClientParams,
  type ClientRow,
  clientJson,
  deleteClient,
  findClient,
  listClients,
  regenerateSecret,
  registerClient,
  updateClient,
} from './clients';

const CLIENT_FIELDS = {
  redirect_uris: 'any',
  grant_types: 'any',
  client_name: 'string',
  client_uri: 'string',
  logo_uri: 'string',
  client_type: 'string',
  token_endpoint_auth_method: 'string',
} as const;

async function loadClient(c: Context<AppEnv>, ctx: AuthContext): Promise<ClientRow> {
  const id = c.req.param('client_id') ?? '';
  if (!isUuid(id)) throw badRequest('validation_failed', 'invalid client_id format');
  const row = await findClient(ctx.db, id);
  if (!row) throw notFound('oauth_client_not_found', 'OAuth client not found');
  return row;
}

const readClientParams = (c: Context<AppEnv>) =>
  readBody(c, CLIENT_FIELDS) as Promise<ClientParams>;

/**
 * The admin API of OAuth clients under `/admin/oauth/clients` (service role; the `/admin/*`
 * guard runs first) and RFC 7591 dynamic registration at `POST /oauth/clients/register`.
 */
export function oauthClientRoutes(routes: Hono<AppEnv>, ctx: AuthContext): void {
  routes.post('/admin/oauth/clients', async (c) => {
    const { row, secret } = await registerClient(ctx.db, await readClientParams(c), 'manual');
    return c.json(clientJson(row, secret), 201);
  });
  routes.get('/admin/oauth/clients', async (c) => {
    const paging = pageParams(c);
    const { rows, total } = await listClients(ctx.db, paging.page, paging.perPage);
    pageHeaders(c, `${ctx.config.url}/auth/v1/admin/oauth/clients`, paging, total);
    return c.json({ clients: rows.map((row) => clientJson(row)) });
  });
  routes.get('/admin/oauth/clients/:client_id', async (c) =>
    c.json(clientJson(await loadClient(c, ctx))),
  );
  routes.put('/admin/oauth/clients/:client_id', async (c) => {
    const row = await loadClient(c, ctx);
    return c.json(clientJson(await updateClient(ctx.db, row, await readClientParams(c))));
  });
  routes.delete('/admin/oauth/clients/:client_id', async (c) => {
    const row = await loadClient(c, ctx);
    await deleteClient(ctx.db, row.id);
    return c.body(null, 204);
  });
  routes.post('/admin/oauth/clients/:client_id/regenerate_secret', async (c) => {
    const { row, secret } = await regenerateSecret(ctx.db, await loadClient(c, ctx));
    return c.json(clientJson(row, secret));
  });
  routes.post('/oauth/clients/register', async (c) => {
    if (!ctx.config.auth.oauthServer.allowDynamicRegistration) {
      throw forbidden(
        'oauth_dynamic_client_registration_disabled',
        'Dynamic client registration is not enabled',
      );
    }
    const { row, secret } = await registerClient(ctx.db, await readClientParams(c), 'dynamic');
    return c.json(clientJson(row, secret), 201);
  });
}
