/**
 * Presence state as the server syncs it (Phoenix.Presence): a full `presence_state`, then
 * `presence_diff`s. Exposed like the official client: `{ key: [{ ...fields, presence_ref }] }`.
 */

/** One presence of a key: the tracked fields plus the server's `presence_ref`. */
export type Presence<T = Record<string, unknown>> = T & { presence_ref: string };

/** Presence state: every key with its presences. */
export type PresenceState<T = Record<string, unknown>> = Record<string, Presence<T>[]>;

type Raw = Record<string, { metas: Array<Record<string, unknown>> }>;

/** Callbacks fired while applying server presence messages. */
export interface PresenceEvents {
  join(key: string, current: Presence[], added: Presence[]): void;
  leave(key: string, current: Presence[], left: Presence[]): void;
  sync(): void;
}

const view = (metas: Array<Record<string, unknown>>): Presence[] =>
  metas.map(({ phx_ref, phx_ref_prev: _prev, ...fields }) => ({
    ...fields,
    presence_ref: String(phx_ref),
  }));

/** Holds the presence state of one channel join. */
export class PresenceStore {
  state: PresenceState = {};
  #pending: Array<{ joins: Raw; leaves: Raw }> | undefined = [];

  readonly #events: PresenceEvents;
  constructor(events: PresenceEvents) {
    this.#events = events;
  }

  /** A new join of the channel: diffs wait again for the next full state. */
  reset(): void {
    this.#pending = [];
  }

  /** Applies a full `presence_state`. */
  applyState(raw: Raw): void {
    const next: PresenceState = {};
    for (const [key, { metas }] of Object.entries(raw)) next[key] = view(metas);
    const pending = this.#pending ?? [];
    this.#pending = undefined;
    this.applyDiff({ joins: minus(next, this.state), leaves: minus(this.state, next) }, false);
    for (const diff of pending) this.applyDiff(diff, false);
    this.#events.sync();
  }

  /** Applies a `presence_diff` (buffered until the first full state of this join). */
  applyDiff(diff: { joins?: Raw; leaves?: Raw }, sync = true): void {
    const joins = diff.joins ?? {};
    const leaves = diff.leaves ?? {};
    if (this.#pending) {
      this.#pending.push({ joins, leaves });
      return;
    }
    for (const [key, { metas }] of Object.entries(joins)) {
      const before = this.state[key] ?? [];
      const added = view(metas);
      const refs = new Set(added.map((p) => p.presence_ref));
      this.state[key] = [...before.filter((p) => !refs.has(p.presence_ref)), ...added];
      this.#events.join(key, this.state[key], added);
    }
    for (const [key, { metas }] of Object.entries(leaves)) {
      const before = this.state[key];
      if (!before) continue;
      const refs = new Set(metas.map((m) => String(m.phx_ref)));
      const left = before.filter((p) => refs.has(p.presence_ref));
      const rest = before.filter((p) => !refs.has(p.presence_ref));
      if (rest.length) this.state[key] = rest;
      else delete this.state[key];
      this.#events.leave(key, rest, left);
    }
    if (sync) this.#events.sync();
  }
}

const toMeta = ({ presence_ref, ...fields }: Presence): Record<string, unknown> => ({
  ...fields,
  phx_ref: presence_ref,
});

/** The presences of `a` that `b` does not have, as a server diff part. */
const minus = (a: PresenceState, b: PresenceState): Raw => {
  const out: Raw = {};
  for (const [key, presences] of Object.entries(a)) {
    const refs = new Set((b[key] ?? []).map((p) => p.presence_ref));
    const rest = presences.filter((p) => !refs.has(p.presence_ref));
    if (rest.length) out[key] = { metas: rest.map(toMeta) };
  }
  return out;
};
