import type { Context, Hono } from 'hono';
import type { AppEnv } from '../../service-module';
import type { AuthContext } from '../context';
import { AuthError, forbidden, internal, notFound, unprocessable } from '../errors';
import { type Caller, isUuid, requireUser } from '../guard';
import { emailFromIdentities, updateProviders } from '../oauth/accounts';
import { startOAuthFlow } from './external';

/** The manual-linking routes need a signed-in user, then `manualLinking` (GoTrue's order). */
async function linkingCaller(c: Context<AppEnv>, ctx: AuthContext): Promise<Caller> {
  const caller = await requireUser(c, ctx);
  if (!ctx.config.auth.external.manualLinking) {
    throw notFound('manual_linking_disabled', 'Manual linking is disabled');
  }
  return caller;
}

/**
 * GET /user/identities/authorize (start linking an OAuth identity: 302 to the provider, or
 * `{url}` with `skip_http_redirect=true`) and DELETE /user/identities/:id (unlink).
 */
export function identityRoutes(routes: Hono<AppEnv>, ctx: AuthContext): void {
  routes.get('/user/identities/authorize', async (c) => {
    const { user } = await linkingCaller(c, ctx);
    const url = await startOAuthFlow(c, ctx, user.id);
    if (c.req.query('skip_http_redirect') === 'true') return c.json({ url });
    return c.redirect(url, 302);
  });

  routes.delete('/user/identities/:identityId', async (c) => {
    const { user, claims } = await linkingCaller(c, ctx);
    const identityId = c.req.param('identityId');
    if (!isUuid(identityId)) throw notFound('validation_failed', 'identity_id must be an UUID');
    const aud = Array.isArray(claims.aud) ? claims.aud[0] : claims.aud;
    if (aud !== (c.req.header('x-jwt-aud') || 'authenticated')) {
      throw forbidden('unexpected_audience', "Token audience doesn't match request audience");
    }
    const identities = user.identities as { identity_id: string; provider: string }[];
    if (identities.length <= 1) {
      throw unprocessable(
        'single_identity_not_deletable',
        'User must have at least 1 identity after unlinking',
      );
    }
    const target = identities.find((i) => i.identity_id === identityId);
    if (!target) throw unprocessable('identity_not_found', "Identity doesn't exist");
    await ctx.db.transaction(async (tx) => {
      await tx.query('delete from auth.identities where id = $1 and user_id = $2', [
        identityId,
        user.id,
      ]);
      if (target.provider === 'phone') {
        await tx.query(
          `update auth.users set phone = null, phone_confirmed_at = null, updated_at = now()
           where id = $1`,
          [user.id],
        );
      } else {
        let ok: boolean;
        try {
          ok = await emailFromIdentities(tx, ctx, user);
        } catch (error) {
          if (error instanceof AuthError) throw error;
          throw internal('Database error updating user email', error);
        }
        if (!ok) {
          throw unprocessable(
            'email_conflict_identity_not_deletable',
            'Unable to unlink identity due to email conflict',
          );
        }
      }
      await updateProviders(tx, user.id);
    });
    return c.json({});
  });
}
