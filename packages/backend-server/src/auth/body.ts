import type { Context } from 'hono';
import type { AppEnv } from '../service-module';
import { AuthError, badRequest } from './errors';

/** Request bodies larger than this are refused (as the hosted service does). */
export const MAX_BODY_BYTES = 1024 * 1024;

type FieldType = 'string' | 'boolean' | 'number' | 'object' | 'any';
/** Expected JSON type of each field a handler reads; other fields are ignored. */
export type BodySchema = Record<string, FieldType>;

type Parsed<S extends BodySchema> = {
  [K in keyof S]?: S[K] extends 'string'
    ? string
    : S[K] extends 'boolean'
      ? boolean
      : S[K] extends 'number'
        ? number
        : S[K] extends 'object'
          ? Record<string, unknown>
          : unknown;
};

const tooLarge = () =>
  new AuthError(
    413,
    'request_entity_too_large',
    `Request body too large (max ${MAX_BODY_BYTES} bytes)`,
  );

/** The raw request body as text, at most {@link MAX_BODY_BYTES} (else 413). */
export async function readLimited(c: Context<AppEnv>): Promise<string> {
  const declared = Number(c.req.header('content-length') ?? Number.NaN);
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const stream = c.req.raw.body;
  if (!stream) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function typeOf(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/**
 * The JSON object body of a request, with each schema field checked for its type
 * (null counts as absent). Malformed JSON or a wrong type → 400 `bad_json`; over 1 MB → 413.
 */
export async function readBody<S extends BodySchema>(
  c: Context<AppEnv>,
  schema: S,
  options: { allowEmpty?: boolean } = {},
): Promise<Parsed<S>> {
  const text = await readLimited(c);
  if (options.allowEmpty && text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = text.trim() === '' ? 'unexpected end of JSON input' : (error as Error).message;
    throw badRequest('bad_json', `Could not parse request body as JSON: ${reason}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badRequest(
      'bad_json',
      `Could not parse request body as JSON: json: cannot unmarshal ${typeOf(value)} into a request object`,
    );
  }
  const body = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [field, type] of Object.entries(schema)) {
    const v = body[field];
    if (v === undefined || v === null) continue;
    const actual = typeOf(v);
    if (type !== 'any' && actual !== type) {
      throw badRequest(
        'bad_json',
        `Could not parse request body as JSON: json: cannot unmarshal ${actual} into field ${field} of type ${type}`,
      );
    }
    out[field] = v;
  }
  return out as Parsed<S>;
}
