import type { Context } from 'hono';
import { clientAddress } from '../../http/client-address';
import type { AppEnv } from '../../service-module';
import { badRequest } from '../errors';

/** The caller's IP (see http/client-address.ts), for rate limits and MFA challenges. */
export const clientIp = (c: Context<AppEnv>): string => clientAddress(c);

/** `?redirect_to=` (auth-js always sends it as a query parameter). */
export const redirectParam = (c: Context<AppEnv>) => c.req.query('redirect_to') || undefined;

export const userAgent = (c: Context<AppEnv>) => c.req.header('user-agent');

const PAGE = /^\d*$/;

/** `?page=&per_page=` of an admin list (GoTrue's defaults: page 1, 50 per page, at most 1000). */
export function pageParams(c: Context<AppEnv>): { page: number; perPage: number } {
  const pageText = c.req.query('page') ?? '';
  const perPageText = c.req.query('per_page') ?? '';
  if (!PAGE.test(pageText) || !PAGE.test(perPageText)) {
    throw badRequest(
      'validation_failed',
      'Bad Pagination Parameters: page and per_page must be integers',
    );
  }
  return {
    page: Math.max(1, Number(pageText || 1)),
    perPage: Math.min(1000, Math.max(1, Number(perPageText || 50))),
  };
}

/** The `X-Total-Count` and `Link` (next, last) headers of an admin list page at `base`. */
export function pageHeaders(
  c: Context<AppEnv>,
  base: string,
  { page, perPage }: { page: number; perPage: number },
  count: number,
): void {
  const last = Math.ceil(count / perPage);
  const link = (p: number, rel: string) => `<${base}?page=${p}&per_page=${perPage}>; rel="${rel}"`;
  const links = [...(page < last ? [link(page + 1, 'next')] : []), link(last, 'last')];
  c.header('x-total-count', String(count));
  c.header('link', links.join(', '));
}
