/**
 * The one place that says which address a request comes from: the socket's peer, or, when
 * that peer is a trusted proxy, the address its `X-Forwarded-For` names.
 */
import { BlockList, isIP } from 'node:net';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../service-module';

/** Addresses and CIDR ranges of trusted proxies, compiled once. */
export class TrustedProxies {
  readonly #list = new BlockList();
  readonly size: number;

  /** Throws a clear error on an entry that is neither an address nor a CIDR range. */
  constructor(entries: readonly string[]) {
    this.size = entries.length;
    for (const entry of entries) {
      const [address = '', prefix, extra] = entry.trim().split('/');
      const family = isIP(address);
      const bits = family === 4 ? 32 : 128;
      const length = prefix === undefined ? bits : Number(prefix);
      if (
        !family ||
        extra !== undefined ||
        !/^\d+$/.test(prefix ?? '0') ||
        !Number.isInteger(length) ||
        length > bits
      ) {
        throw new Error(
          `trustedProxies: "${entry}" is not an IP address or CIDR range (e.g. 10.0.0.0/8, ::1)`,
        );
      }
      this.#list.addSubnet(address, length, family === 4 ? 'ipv4' : 'ipv6');
    }
  }

  /** True when `address` (a normalised IP address) is one of the trusted proxies. */
  has(address: string): boolean {
    const family = isIP(address);
    if (family === 0 || this.size === 0) return false;
    try {
      return this.#list.check(address, family === 4 ? 'ipv4' : 'ipv6');
    } catch {
      return false;
    }
  }
}

/** `::ffff:10.0.0.1` (IPv4 on a dual-stack socket) is `10.0.0.1`; a `:port` is dropped. */
export function normalizeAddress(raw: string): string {
  let value = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed?.[1]) value = bracketed[1];
  else if (/^[\d.]+:\d+$/.test(value)) value = value.slice(0, value.lastIndexOf(':'));
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(value);
  return (mapped?.[1] ?? value).toLowerCase();
}

/**
 * The client's address: `peer` (the socket's), unless `peer` is a trusted proxy and
 * `forwardedFor` (the `X-Forwarded-For` value) names hops: then the right-most hop that is
 * not itself a trusted proxy (everything left of it was written by the client, so it is
 * never believed). When every hop is trusted, the left-most one.
 */
export function resolveClientAddress(
  peer: string | undefined,
  forwardedFor: string | undefined,
  trusted: TrustedProxies,
): string {
  if (!peer) return 'local';
  let address = normalizeAddress(peer);
  if (!forwardedFor || !trusted.has(address)) return address;
  const hops = forwardedFor.split(',').map(normalizeAddress).filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i] as string;
    // A hop that is not an address can only come from a proxy we should not have trusted.
    if (!isIP(hop)) return address;
    address = hop;
    if (!trusted.has(hop)) return hop;
  }
  return address;
}

/**
 * Sets `clientAddress` for every request (first middleware of the app), from the socket
 * of `@hono/node-server`; `'local'` for requests without one (`server.request()`).
 */
export function clientAddressMiddleware(trusted: TrustedProxies): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set(
      'clientAddress',
      resolveClientAddress(peerOf(c), c.req.header('x-forwarded-for'), trusted),
    );
    await next();
  };
}

/** The socket's peer address, from `@hono/node-server`'s environment. */
const peerOf = (c: Context<AppEnv>): string | undefined =>
  (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket
    ?.remoteAddress;

/** True when the request's socket peer is a trusted proxy (its `X-Forwarded-*` count). */
export function fromTrustedProxy(c: Context<AppEnv>, trusted: TrustedProxies): boolean {
  const peer = peerOf(c);
  return peer !== undefined && trusted.has(normalizeAddress(peer));
}

/** The proxy headers a client may not set itself. */
const FORWARDED = ['forwarded', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-for'];

/** `req` without the `Forwarded` / `X-Forwarded-*` headers (the body and signal are kept). */
export function withoutForwarded(req: Request): Request {
  if (!FORWARDED.some((h) => req.headers.has(h))) return req;
  const headers = new Headers(req.headers);
  for (const h of FORWARDED) headers.delete(h);
  return new Request(req, { headers });
}

/** The address of the request's client (see {@link resolveClientAddress}). */
export const clientAddress = (c: Context<AppEnv>): string => c.get('clientAddress') ?? 'local';
