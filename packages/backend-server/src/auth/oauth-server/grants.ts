import type { Hono } from 'hono';
import type { AppEnv } from '../../service-module';
import type { AuthContext } from '../context';
import { badRequest, notFound } from '../errors';
import { isUuid, requireUser } from '../guard';

interface GrantRow {
  id: string;
  client_name: string | null;
  client_uri: string | null;
  logo_uri: string | null;
  scopes: string;
  granted_at: Date | string;
}

/**
 * The signed-in user's grants to OAuth clients (`/user/oauth/grants`): the list, and revoking
 * one (`?client_id=`), which also ends the sessions issued to that client.
 */
export function grantRoutes(routes: Hono<AppEnv>, ctx: AuthContext): void {
  routes.get('/user/oauth/grants', async (c) => {
    const { user } = await requireUser(c, ctx);
    const { rows } = await ctx.db.query<GrantRow>(
      `select c.id, c.client_name, c.client_uri, c.logo_uri, g.scopes, g.granted_at
       from auth.oauth_consents g join auth.oauth_clients c on c.id = g.client_id
       where g.user_id = $1 and g.revoked_at is null and c.deleted_at is null
       order by g.granted_at desc`,
      [user.id],
    );
    return c.json(
      rows.map((r) => ({
        client: {
          id: r.id,
          ...(r.client_name ? { name: r.client_name } : {}),
          ...(r.client_uri ? { uri: r.client_uri } : {}),
          ...(r.logo_uri ? { logo_uri: r.logo_uri } : {}),
        },
        scopes: r.scopes.split(' ').filter(Boolean),
        granted_at: new Date(r.granted_at).toISOString(),
      })),
    );
  });
  routes.delete('/user/oauth/grants', async (c) => {
    const { user } = await requireUser(c, ctx);
    const clientId = c.req.query('client_id') ?? '';
    if (!clientId) {
      throw badRequest('validation_failed', 'client_id query parameter is required');
    }
    if (!isUuid(clientId)) throw badRequest('validation_failed', 'invalid client_id format');
    const { rows } = await ctx.db.query<{ n: number }>(
      `with revoked as (
         update auth.oauth_consents set revoked_at = now()
         where user_id = $1 and client_id = $2 and revoked_at is null returning 1
       ), ended as (
         delete from auth.sessions
         where user_id = $1 and oauth_client_id = $2 and exists (select 1 from revoked)
       )
       select count(*)::int as n from revoked`,
      [user.id, clientId],
    );
    if (!rows[0]?.n) {
      throw notFound('oauth_consent_not_found', 'No active grant found for this client');
    }
    return c.body(null, 204);
  });
}
