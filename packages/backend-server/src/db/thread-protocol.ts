/** Messages between the main thread and the PGlite worker thread. */
import type { Statement } from './types';

export interface ThreadInit {
  dataDir: string | null;
  /** A data-directory tarball to start from (the platform snapshot), read by the thread. */
  snapshotFile: string | null;
  /**
   * PGlite's installed folder, resolved by the main thread: the worker's script may be a
   * bundle in a temp folder, where the package cannot be resolved.
   */
  pgliteDir: string;
}

/** A call without its id (distributes over the union, unlike Omit). */
export type CallBody = Call extends infer C
  ? C extends { id: number }
    ? Omit<C, 'id'>
    : never
  : never;

export type Call =
  | { id: number; op: 'ready' | 'close' }
  | { id: number; op: 'query'; text: string; params: readonly unknown[] }
  | { id: number; op: 'exec'; script: string }
  | { id: number; op: 'batch'; statements: readonly Statement[]; rollback: boolean }
  | { id: number; op: 'listen' | 'unlisten'; channel: string }
  | { id: number; op: 'begin'; txid: number; readOnly: boolean }
  | { id: number; op: 'txquery'; txid: number; text: string; params: readonly unknown[] }
  | { id: number; op: 'txexec'; txid: number; script: string }
  | { id: number; op: 'txcopyout'; txid: number; source: string }
  | { id: number; op: 'txcopyin'; txid: number; target: string; data: Uint8Array }
  | { id: number; op: 'end'; txid: number; commit: boolean };

export type Reply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: SerializedError }
  | { id: -1; notify: string; payload: string };

/** An error's message and its plain fields (SQLSTATE `code`, `detail`, `hint`, …). */
export interface SerializedError {
  message: string;
  fields: Record<string, string | number | boolean | null>;
}

export function serializeError(error: unknown): SerializedError {
  if (typeof error !== 'object' || error === null) return { message: String(error), fields: {} };
  const fields: SerializedError['fields'] = {};
  for (const [k, v] of Object.entries(error)) {
    if (v === null || ['string', 'number', 'boolean'].includes(typeof v))
      fields[k] = v as string | number | boolean | null;
  }
  const message = (error as { message?: unknown }).message;
  return { message: typeof message === 'string' ? message : String(error), fields };
}

export function deserializeError(e: SerializedError): Error {
  return Object.assign(new Error(e.message), e.fields);
}
