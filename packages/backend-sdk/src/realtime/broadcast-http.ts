/** Broadcasts over HTTP (`POST /realtime/v1/api/broadcast…`), for channels. */
import type { RealtimeClient } from './client';
import { RealtimeError } from './errors';

/**
 * Posts a broadcast request over HTTP with the token joins use (`socket.joinToken()`): JSON,
 * or the bytes as they are for binary payloads.
 */
async function postBroadcast(
  socket: RealtimeClient,
  path: string,
  query: string,
  payload: unknown,
  options?: { timeout?: number; signal?: AbortSignal },
): Promise<Response> {
  const binary = payload instanceof ArrayBuffer || ArrayBuffer.isView(payload);
  return socket.http.send({
    method: 'POST',
    path,
    query,
    headers: { 'Content-Type': binary ? 'application/octet-stream' : 'application/json' },
    ...(binary ? { body: payload as BodyInit } : { json: payload }),
    signal: options?.signal ?? null,
    timeout: options?.timeout ?? socket.timeout,
    token: await socket.joinToken(),
    error: (m, o) => new RealtimeError(m, o),
  });
}

/**
 * A channel's `send()` while not joined: the message goes over HTTP, as the official client
 * sends it, and the result says whether the server took it.
 */
export async function broadcastUnjoined(
  socket: RealtimeClient,
  topic: string,
  isPrivate: boolean,
  message: { event: string; payload?: unknown },
): Promise<'ok' | 'timed out' | 'error'> {
  try {
    const messages = [
      { topic, event: message.event, payload: message.payload, private: isPrivate },
    ];
    const res = await postBroadcast(socket, '/realtime/v1/api/broadcast', '', { messages });
    await res.body?.cancel();
    return res.ok ? 'ok' : 'error';
  } catch (e) {
    return (e as RealtimeError).code === 'timeout' ? 'timed out' : 'error';
  }
}

/** A channel's `httpSend()`: `{ success: true }` on 202, else a {@link RealtimeError}. */
export async function httpBroadcast(
  socket: RealtimeClient,
  topic: string,
  isPrivate: boolean,
  event: string,
  payload: unknown,
  options: { timeout?: number; signal?: AbortSignal },
): Promise<{ success: true }> {
  if (payload === undefined || payload === null)
    throw new RealtimeError('Payload is required for httpSend()', { code: 'invalid_argument' });
  const path = `/realtime/v1/api/broadcast/${encodeURIComponent(topic)}/events/${encodeURIComponent(event)}`;
  const res = await postBroadcast(socket, path, isPrivate ? 'private=true' : '', payload, options);
  const text = await res.text();
  if (res.status === 202) return { success: true };
  let message = res.statusText;
  try {
    const body = JSON.parse(text);
    message = body.error || body.message || message;
  } catch {}
  throw new RealtimeError(message || `Request failed with status ${res.status}`, {
    status: res.status,
    details: text,
  });
}
