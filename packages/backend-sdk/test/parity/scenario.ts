/** One call (or a few) run through both clients and compared on the wire and in the result. */
import type { Any, ClientSetup, Ctx } from './harness';

export type { Any, Ctx };

export interface Scenario {
  /** Unique id, `capability.what`; intended differences name it. */
  id: string;
  /** How the client is made (default: anon key, signed in as the side's user). */
  client?: ClientSetup;
  /** Runs first, not recorded (e.g. rows the scenario then reads or changes); its value goes to `run`. */
  setup?(c: Any, ctx: Ctx): Promise<unknown>;
  /** The call(s) compared; resolves the result compared. */
  run(c: Any, ctx: Ctx, prepared: Any): Promise<unknown>;
}
