/**
 * The official client (`@supabase/supabase-js` 2.109.0), the conformance oracle, created
 * the way Node 20 needs it (the `ws` package as realtime transport).
 */
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';

type FetchLike = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;

/** An official client without persistence or timers, sending through `fetch`. */
export function officialClient(
  url: string,
  key: string,
  options: { fetch?: FetchLike; flowType?: 'implicit' | 'pkce'; passkey?: boolean } = {},
): SupabaseClient {
  return createClient(url, key, {
    ...(options.fetch ? { global: { fetch: options.fetch as typeof fetch } } : {}),
    auth: {
      persistSession: false,
      autoRefreshToken: false,
      detectSessionInUrl: false,
      ...(options.flowType ? { flowType: options.flowType } : {}),
      ...(options.passkey ? { experimental: { passkey: true } } : {}),
    },
    realtime: { transport: WebSocket as never },
  });
}
