/**
 * Runs one auth hook as GoTrue does: a Postgres function (as `supabase_auth_admin`, with a
 * 2 s statement timeout, in the caller's transaction or one of its own) or an HTTP(S)
 * endpoint (POST JSON signed as Standard Webhooks, 5 s for all attempts, 3 attempts on
 * connection failures, a 200 KB answer limit). Failures become GoTrue's errors.
 */
import { createHmac, randomUUID } from 'node:crypto';
import type { ResolvedHook } from '../config/auth-hooks';
import type { Database, Queryable } from '../db/index';
import { AuthError, internal } from './errors';

/** The role GoTrue connects as: Postgres hooks run as it, so it needs EXECUTE on them. */
export const HOOK_ROLE = 'supabase_auth_admin';
/** GoTrue's limit on a Postgres hook (`statement_timeout`). */
const PG_TIMEOUT_MS = 2000;
/** GoTrue's limits on an HTTP hook. */
const HTTP_TIMEOUT_MS = 5000;
const HTTP_ATTEMPTS = 3;
const HTTP_BACKOFF_MS = 2000;
const RESPONSE_LIMIT = 200 * 1024;

/** A hook error as GoTrue reports it: the status, the message and no error code of its own. */
export const hookError = (status: number, message: string, cause?: unknown) =>
  new AuthError(status, '', message, {}, cause);

/** The `metadata` member of every hook payload. */
export const hookMetadata = (name: string) => ({
  uuid: randomUUID(),
  time: new Date().toISOString(),
  name,
});

/** An `error` member the hook answered with (`{ error: { http_code, message } }`), as an error. */
function answeredError(parsed: unknown): AuthError | null {
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const error = (parsed as { error?: unknown }).error;
  if (!error || typeof error !== 'object') return null;
  const { http_code: code, message } = error as { http_code?: unknown; message?: unknown };
  if (typeof message !== 'string' || message === '') return null;
  const status = typeof code === 'number' && code >= 100 && code <= 599 ? code : 500;
  return hookError(status, message);
}

/**
 * Parses a hook's answer: null for none (SQL null, HTTP 204); GoTrue's errors for a bad one
 * (an empty HTTP body too) or an `error` member.
 */
function parseAnswer(text: string | null): unknown {
  if (text === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw hookError(500, 'Error unmarshaling JSON output.', cause);
  }
  const error = answeredError(parsed);
  if (error) throw error;
  return parsed;
}

async function runPg(q: Queryable, fn: string, payload: string): Promise<string | null> {
  await q.query(`select set_config('role', $1, true), set_config('statement_timeout', $2, true)`, [
    HOOK_ROLE,
    String(PG_TIMEOUT_MS),
  ]);
  const { rows } = await q.query<{ out: string | null }>(
    `select (${fn}($1::text::jsonb))::text as out`,
    [payload],
  );
  await q.query('reset role');
  await q.query('set local statement_timeout to default');
  return rows[0]?.out ?? null;
}

/** The Standard Webhooks signatures of a payload, one per secret (base64 part of `whsec_`). */
export function signWebhook(secrets: readonly string[], id: string, ts: number, body: string) {
  return secrets
    .map((secret) => {
      const mac = createHmac('sha256', Buffer.from(secret, 'base64'));
      return `v1,${mac.update(`${id}.${ts}.${body}`).digest('base64')}`;
    })
    .join(', ');
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((done) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        done();
      },
      { once: true },
    );
  });

const timeoutError = () =>
  new AuthError(
    422,
    'hook_timeout',
    `Failed to reach hook within maximum time of ${(HTTP_TIMEOUT_MS / 1000).toFixed(6)} seconds`,
  );

/** Reads at most RESPONSE_LIMIT bytes of a body; null when it is longer. */
async function limitedText(res: Response): Promise<string | null> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body ?? []) {
    size += chunk.byteLength;
    if (size > RESPONSE_LIMIT) {
      await res.body?.cancel().catch(() => {});
      return null;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function runHttp(hook: ResolvedHook, payload: string): Promise<string | null> {
  const signal = AbortSignal.timeout(HTTP_TIMEOUT_MS);
  for (let attempt = 0; attempt < HTTP_ATTEMPTS; attempt++) {
    const id = randomUUID();
    const ts = Math.floor(Date.now() / 1000);
    let res: Response;
    try {
      res = await fetch(hook.uri, {
        method: 'POST',
        body: payload,
        signal,
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(ts),
          'webhook-signature': signWebhook(hook.secrets, id, ts, payload),
          'accept-encoding': 'identity',
        },
      });
    } catch {
      if (signal.aborted) throw timeoutError();
      if (attempt < HTTP_ATTEMPTS - 1) {
        await sleep(HTTP_BACKOFF_MS, signal);
        if (signal.aborted) throw timeoutError();
        continue;
      }
      throw new AuthError(
        422,
        'hook_timeout_after_retry',
        'Failed to reach hook after maximum retries',
      );
    }
    try {
      if (res.status === 204) return null;
      if (res.status === 200 || res.status === 202) {
        const type = res.headers.get('content-type');
        if (!type) {
          throw new AuthError(
            400,
            'hook_payload_invalid_content_type',
            'Invalid Content-Type: Missing Content-Type header',
          );
        }
        if (type.split(';')[0]?.trim().toLowerCase() !== 'application/json') {
          throw new AuthError(
            400,
            'hook_payload_invalid_content_type',
            `Invalid JSON response. Received content-type: ${type}`,
          );
        }
        const text = await limitedText(res);
        if (text === null) {
          throw new AuthError(
            422,
            'hook_payload_over_size_limit',
            `Payload size exceeded size limit of ${RESPONSE_LIMIT} bytes`,
          );
        }
        return text;
      }
      if ((res.status === 429 || res.status === 503) && res.headers.get('retry-after')) continue;
      if (res.status === 429 || res.status === 503) {
        throw internal('Service currently unavailable due to hook');
      }
      if (res.status === 400) throw internal('Invalid payload sent to hook');
      if (res.status === 401) throw internal('Hook requires authorization token');
      throw internal(`Unexpected status code returned from hook: ${res.status}`);
    } catch (error) {
      if (error instanceof AuthError) throw error;
      if (signal.aborted) throw timeoutError();
      throw internal(`Error running hook URI: ${hook.uri}`, error);
    } finally {
      if (!res.bodyUsed) await res.body?.cancel().catch(() => {});
    }
  }
  throw internal('Service currently unavailable due to hook');
}

/**
 * Runs `hook` with `payload` and returns its parsed answer (null for none). A Postgres hook
 * runs in `q` when given (the caller's transaction), else in a transaction of its own.
 */
export async function dispatchHook(
  db: Database,
  q: Queryable | null,
  hook: ResolvedHook,
  payload: Record<string, unknown>,
): Promise<unknown> {
  const body = JSON.stringify(payload);
  let text: string | null;
  if (hook.kind === 'http') {
    text = await runHttp(hook, body);
  } else {
    const fn = hook.fn ?? '';
    try {
      text = q ? await runPg(q, fn, body) : await db.transaction((tx) => runPg(tx, fn, body));
    } catch (cause) {
      throw hookError(500, `Error running hook URI: ${hook.uri}`, cause);
    }
  }
  return parseAnswer(text);
}
