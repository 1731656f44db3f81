/**
 * The console's S3 access key API (`/_console/api/s3-keys`), the hosted "S3 access keys"
 * page: list the keys (never a secret), create one (its secret answered once, in that
 * answer) and delete one (refused at once by every replica: requests read the key table).
 * The configured key pair is not listed here: it is the server's settings (`GET /session`).
 */
import { Hono } from 'hono';
import type { Database } from '../db/index';
import type { AppEnv } from '../service-module';
import { createS3Key, deleteS3Key, descriptionProblem, listS3Keys } from '../storage/s3/keys';
import type { NewS3AccessKey, S3AccessKey } from './api-types';
import { badRequest, jsonBody, notFound } from './http';

export function s3KeyRoutes(db: Database): Hono<AppEnv> {
  const api = new Hono<AppEnv>();

  api.get('/', async (c) => c.json((await listS3Keys(db)) satisfies S3AccessKey[]));

  api.post('/', async (c) => {
    const body = (await jsonBody(c)) ?? {};
    const description = body.description ?? '';
    const problem = descriptionProblem(description);
    if (problem) return badRequest(c, `${problem} Send {"description": "…"}.`);
    const key = await createS3Key(db, description as string);
    return c.json(key satisfies NewS3AccessKey, 201, { 'cache-control': 'no-store' });
  });

  api.delete('/:id', async (c) =>
    (await deleteS3Key(db, c.req.param('id')))
      ? c.body(null, 204)
      : notFound(c, 'No such S3 access key'),
  );

  return api;
}
