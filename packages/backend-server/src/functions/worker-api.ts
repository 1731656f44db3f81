import type WebSocket from 'ws';

/**
 * What a function worker (worker.ts) is given and answers: its options, one call's request,
 * and how a call fails.
 */

/** How a call failed, as the hosted runtime classifies it. */
export type FailureKind = 'boot' | 'error' | 'limit';

/** A call that did not get a response from the function. */
export class InvokeFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
  ) {
    super(message);
  }
}

export interface WorkerOptions {
  /** The compiled worker runtime (worker-runtime.ts). */
  runtimePath: string;
  env: Record<string, string>;
  memoryLimitMb: number;
  wallTimeMs: number;
  /** Stop the thread after this long without calls. */
  idleTimeoutMs: number;
  /** Stop the thread when its event loop stays busy this long while it serves a call. */
  cpuTimeMs: number;
  /** Where the worker's console output and failures are reported. */
  report(line: string, stream: 'out' | 'err'): void;
  /** Called once the thread has ended. */
  onExit(): void;
}

/** What the server forwards to a function. */
export interface InvokeRequest {
  method: string;
  /** The URL the function sees: `/functions/v1` stripped, query kept. */
  url: string;
  headers: [string, string][];
  body: ReadableStream<Uint8Array> | null;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
  remote: { hostname: string; port: number };
  /**
   * For an upgrade request: completes the WebSocket handshake with the client (with the
   * subprotocol the function chose) once the function returned `Deno.upgradeWebSocket`'s
   * response; null when the client is gone.
   */
  accept?: (protocol: string) => Promise<WebSocket | null>;
}
