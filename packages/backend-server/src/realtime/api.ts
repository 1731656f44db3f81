import { type Context, Hono } from 'hono';
import type { JwtClaims } from '../http/jwt';
import { bearerToken } from '../http/jwt';
import type { AppEnv } from '../service-module';
import { writePermission } from './authorization';
import { flag } from './channel';
import type { RealtimeContext } from './context';
import { checkToken } from './tokens';

const NO_KEY = {
  message: 'No API key found in request',
  hint: 'No `apikey` request header or url param was found.',
};
const BAD_KEY = {
  message: 'Invalid API key',
  hint: 'Double check your Supabase `anon` or `service_role` API key.',
};
const UNSUPPORTED = {
  error: 'Unsupported Media Type. Use application/json or application/octet-stream',
};

type Caller = { role: string; claims: JwtClaims; headers: Record<string, string> };

/**
 * The gateway's key-auth for `/realtime/v1/api/*`, then the realtime service's own check of
 * the bearer token (or the key). Returns the caller, or the error response.
 */
async function authenticate(c: Context<AppEnv>, ctx: RealtimeContext): Promise<Caller | Response> {
  const { apiKey, keyRole } = c.get('gateway');
  if (!apiKey) return c.json(NO_KEY, 401);
  if (!keyRole) return c.json(BAD_KEY, 401);
  const token = bearerToken(c.req.header('authorization')) ?? apiKey;
  const checked = await checkToken(token, ctx.config);
  if (!checked.ok) return c.json({ message: 'Unauthorized' }, 401);
  const headers: Record<string, string> = {};
  c.req.raw.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { role: String(checked.claims.role), claims: checked.claims, headers };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

async function readJson(c: Context<AppEnv>): Promise<{ ok: true; value: unknown } | { ok: false }> {
  try {
    const text = await c.req.text();
    return { ok: true, value: text === '' ? null : JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** REST broadcast endpoints under `/api`. */
export function apiRoutes(ctx: RealtimeContext): Hono<AppEnv> {
  const api = new Hono<AppEnv>();
  const limit = ctx.config.realtime.maxPayloadBytes;

  // The gateway blocks these paths of the realtime API.
  api.all('/api/tenants/*', (c) => c.json({ message: 'Forbidden' }, 403));
  api.all('/api/openapi', (c) => c.json({ message: 'Forbidden' }, 403));

  api.post('/api/broadcast', async (c) => {
    const caller = await authenticate(c, ctx);
    if (caller instanceof Response) return caller;
    const body = await readJson(c);
    if (!body.ok) return c.json({ message: 'Bad Request' }, 400);
    const messages = isObject(body.value) ? body.value.messages : undefined;
    if (!Array.isArray(messages) || messages.length === 0) {
      return c.json({ errors: { messages: ["can't be blank"] } }, 422);
    }
    let invalid = false;
    const errors = messages.map((m) => {
      const e: Record<string, string[]> = {};
      if (!isObject(m)) {
        invalid = true;
        return { topic: ['is invalid'] };
      }
      for (const field of ['topic', 'event'] as const) {
        if (m[field] === undefined || m[field] === null || m[field] === '')
          e[field] = ["can't be blank"];
        else if (typeof m[field] !== 'string') e[field] = ['is invalid'];
      }
      if (m.payload === undefined || m.payload === null) e.payload = ["can't be blank"];
      else if (!isObject(m.payload)) e.payload = ['is invalid'];
      else if (JSON.stringify(m.payload).length > limit) {
        e.payload = ['Payload size exceeds tenant limit'];
      }
      if (m.private !== undefined && m.private !== null && typeof m.private !== 'boolean') {
        e.private = ['is invalid'];
      }
      if (Object.keys(e).length > 0) invalid = true;
      return e;
    });
    if (invalid) return c.json({ errors: { messages: errors } }, 422);
    const allowed = new Map<string, boolean>();
    for (const m of messages as Record<string, unknown>[]) {
      const topic = m.topic as string;
      const isPrivate = m.private === true;
      if (isPrivate) {
        let ok = allowed.get(topic);
        if (ok === undefined) {
          ok = await writePermission(ctx.db, { ...caller, topic }, 'broadcast');
          allowed.set(topic, ok);
        }
        if (!ok) continue;
      }
      const payload: Record<string, unknown> = {
        type: 'broadcast',
        event: m.event,
        payload: m.payload,
      };
      if (typeof m.id === 'string') payload.meta = { id: m.id };
      ctx.hub.broadcast(`realtime:${topic}`, isPrivate, payload);
    }
    return c.body(null, 202);
  });

  api.post('/api/broadcast/:topic/events/:event', async (c) => {
    const type = c.req.header('content-type');
    const mediaType = type?.split(';')[0]?.trim().toLowerCase();
    const binary = mediaType === 'application/octet-stream';
    if (type !== undefined && !binary && mediaType !== 'application/json') {
      return c.json(UNSUPPORTED, 415);
    }
    const caller = await authenticate(c, ctx);
    if (caller instanceof Response) return caller;
    const topic = c.req.param('topic');
    const event = c.req.param('event');
    const isPrivate = flag(c.req.query('private'));
    let send: () => void;
    if (binary) {
      const bytes = new Uint8Array(await c.req.arrayBuffer());
      if (bytes.length > limit) {
        return c.json({ errors: { payload: ['Payload size exceeds tenant limit'] } }, 422);
      }
      if (Buffer.byteLength(event) > 255 || Buffer.byteLength(`realtime:${topic}`) > 255) {
        return c.json({ errors: { event: ['is invalid'] } }, 422);
      }
      send = () =>
        ctx.hub.broadcastUser(`realtime:${topic}`, isPrivate, {
          event,
          encoding: 0,
          payload: bytes,
          metadata: '',
        });
    } else {
      const body = await readJson(c);
      if (!body.ok) return c.json({ message: 'Bad Request' }, 400);
      if (body.value === null) return c.json({ errors: { payload: ["can't be blank"] } }, 422);
      if (JSON.stringify(body.value).length > limit) {
        return c.json({ errors: { payload: ['Payload size exceeds tenant limit'] } }, 422);
      }
      const payload = { type: 'broadcast', event, payload: body.value };
      send = () => ctx.hub.broadcast(`realtime:${topic}`, isPrivate, payload);
    }
    if (isPrivate && !(await writePermission(ctx.db, { ...caller, topic }, 'broadcast'))) {
      return c.json({ message: 'Unauthorized' }, 403);
    }
    send();
    return c.body(null, 202);
  });

  return api;
}
