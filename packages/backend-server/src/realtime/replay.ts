/**
 * Broadcast replay, as the hosted service has it: a private channel joined with
 * `config.broadcast.replay: { since, limit }` first receives the broadcasts stored in
 * `realtime.messages` for its topic (those sent from the database, private) inserted since
 * `since` (ms since the epoch): the newest `limit` of them (1 to 25, default 25), oldest first,
 * with `meta: { replayed: true, id }`. Client broadcasts are not stored, so not replayed.
 */
import type { Database } from '../db/index';

/** The most messages one join replays, whatever `limit` asks (the hosted cap). */
export const REPLAY_HARD_LIMIT = 25;

export interface ReplayRequest {
  since: number;
  limit: number;
}

export interface StoredBroadcast {
  id: string;
  event: string | null;
  payload: unknown;
}

const FAIL = 'UnableToReplayMessages';

/**
 * Reads `config.broadcast.replay`: null when absent, else the request or the join's error
 * reason (public channels cannot replay; `since` and `limit` must be integers).
 */
export function replayRequest(
  broadcast: Record<string, unknown>,
  isPrivate: boolean,
): { ok: true; request: ReplayRequest | null } | { ok: false; reason: string } {
  if (!('replay' in broadcast) || broadcast.replay === undefined)
    return { ok: true, request: null };
  if (!isPrivate) {
    return { ok: false, reason: `${FAIL}: Replay is not allowed for public channels` };
  }
  const replay = broadcast.replay;
  if (!replay || typeof replay !== 'object' || Array.isArray(replay)) {
    return { ok: true, request: null };
  }
  const { since, limit = REPLAY_HARD_LIMIT } = replay as Record<string, unknown>;
  if (!Number.isInteger(since) || !Number.isInteger(limit)) {
    return { ok: false, reason: `${FAIL}: Replay params are not valid` };
  }
  const capped = Math.max(1, Math.min(limit as number, REPLAY_HARD_LIMIT));
  return { ok: true, request: { since: since as number, limit: capped } };
}

/** The stored private broadcasts of `topic` a join replays, oldest first. */
export async function storedBroadcasts(
  db: Database,
  topic: string,
  { since, limit }: ReplayRequest,
): Promise<StoredBroadcast[]> {
  // inserted_at is the session's local time (`now()` into a timestamp): compare alike.
  const { rows } = await db.query<StoredBroadcast>(
    `select id::text, event, payload from (
       select id, event, payload, inserted_at from realtime.messages
        where topic = $1 and private is true and extension = 'broadcast'
          and inserted_at >= to_timestamp($2::float8 / 1000)::timestamp
          and inserted_at < localtimestamp + interval '1 minute'
        order by inserted_at desc
        limit $3) newest
     order by inserted_at`,
    [topic, since, limit],
  );
  return rows;
}

export const REPLAY_FAILED = `${FAIL}: Realtime was unable to replay messages`;
