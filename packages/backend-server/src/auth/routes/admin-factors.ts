import type { Hono } from 'hono';
import type { AppEnv } from '../../service-module';
import { readBody } from '../body';
import type { AuthContext } from '../context';
import { notFound } from '../errors';
import { isUuid } from '../guard';
import { deleteFactor, ownedFactor, userFactors } from '../mfa/factors';
import { validatePhone } from '../phone';

/** 404 unless `id` is an existing user (the admin user loader of the hosted service). */
export async function existingUser(ctx: AuthContext, id: string): Promise<string> {
  if (!isUuid(id)) throw notFound('validation_failed', 'user_id must be an UUID');
  const { rows } = await ctx.db.query('select 1 from auth.users where id = $1', [id]);
  if (rows.length === 0) throw notFound('user_not_found', 'User not found');
  return id;
}

/** GET /admin/users/:id/factors, PUT and DELETE /admin/users/:id/factors/:factorId. */
export function adminFactorRoutes(routes: Hono<AppEnv>, ctx: AuthContext): void {
  routes.get('/admin/users/:id/factors', async (c) => {
    const userId = await existingUser(ctx, c.req.param('id'));
    return c.json((await userFactors(ctx.db, userId)).map((f) => f.json));
  });

  routes.delete('/admin/users/:id/factors/:factorId', async (c) => {
    const userId = await existingUser(ctx, c.req.param('id'));
    const factor = await ctx.db.transaction(async (tx) => {
      const found = await ownedFactor(tx, userId, c.req.param('factorId'));
      await deleteFactor(tx, found);
      return found;
    });
    return c.json(factor.json);
  });

  routes.put('/admin/users/:id/factors/:factorId', async (c) => {
    const userId = await existingUser(ctx, c.req.param('id'));
    const body = await readBody(c, { friendly_name: 'string', phone: 'string' });
    const factor = await ctx.db.transaction(async (tx) => {
      const found = await ownedFactor(tx, userId, c.req.param('factorId'));
      const phone = body.phone && found.type === 'phone' ? validatePhone(body.phone) : null;
      await tx.query(
        `update auth.mfa_factors set friendly_name = coalesce($2, friendly_name),
           phone = coalesce($3, phone), updated_at = now() where id = $1`,
        [found.id, body.friendly_name || null, phone],
      );
      return ownedFactor(tx, userId, found.id);
    });
    return c.json(factor.json);
  });
}
