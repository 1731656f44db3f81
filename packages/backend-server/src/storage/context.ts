import type { Database } from '../db/index';
import type { GatewayInfo } from '../http/gateway';
import type { SigningKeys } from '../http/signing-keys';
import { authenticate, type Caller } from './auth';
import type { ObjectBackend } from './backends/index';
import type { DiskStore } from './backends/storage-dir';
import { ERR } from './errors';
import type { Renderer } from './render/render';

/** What every storage route reads. */
export interface StorageContext {
  db: Database;
  /** The storage directory's local files (temp files, resumable uploads). */
  disk: DiskStore;
  /** Where object bytes live (the storage directory, or an S3 bucket). */
  objects: ObjectBackend;
  /** HS256 secret of signed URL tokens (the legacy JWT secret). */
  secret: string;
  /** The project's signing keys, which verify request JWTs. */
  keys: SigningKeys;
  /** Server-wide upload limit in bytes. */
  globalLimit: number;
  /** Lifetime of signed upload URLs, seconds. */
  signedUploadExpiry: number;
  /** Image transformations (`/render/image`), or null when they are turned off. */
  render: Renderer | null;
}

/** One routed request: the Web request, its path under /storage/v1 and the gateway info. */
export interface StorageRequest {
  req: Request;
  path: string;
  query: URLSearchParams;
  gateway: GatewayInfo;
}

/** The verified caller of a request (AccessDenied when the token is missing or bad). */
export const callerOf = (s: StorageContext, r: StorageRequest): Promise<Caller> =>
  authenticate(r.req, r.path, r.gateway, s.keys);

/** A JSON response. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });
}

const MAX_JSON_BYTES = 1024 * 1024;

/** A request body as text, refusing bodies over `limit` bytes without buffering them. */
async function readText(req: Request, limit: number): Promise<string> {
  if (Number(req.headers.get('content-length') ?? 0) > limit)
    throw ERR.invalidRequest('Body is too large');
  if (!req.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of req.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > limit) throw ERR.invalidRequest('Body is too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The JSON object body of a request (`{}` when empty); InvalidRequest when it is not one. */
export async function readJson(req: Request): Promise<Record<string, unknown>> {
  const text = await readText(req, MAX_JSON_BYTES);
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      return value as Record<string, unknown>;
    }
  } catch {}
  throw ERR.invalidRequest('Body is not a valid JSON object');
}

/** A required string property of a body (`body must have required property 'x'`). */
export function requireString(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (value === undefined || value === null) {
    throw ERR.invalidRequest(`body must have required property '${name}'`);
  }
  if (typeof value !== 'string') throw ERR.invalidRequest(`body/${name} must be string`);
  return value;
}

/** An optional integer property within bounds. */
export function optionalInt(
  body: Record<string, unknown>,
  name: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
    throw ERR.invalidRequest(`body/${name} must be an integer between ${min} and ${max}`);
  }
  return n;
}
