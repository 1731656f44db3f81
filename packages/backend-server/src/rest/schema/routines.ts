import { RestError } from '../errors';
import { closestMatch, NAME_MIN_SCORE } from './fuzzy';
import type { DbFunction, FunctionArg, SchemaCache } from './types';
import { qualified } from './types';

/** How the body of a POST to /rpc/fn is sent. */
export type RpcBody = 'json' | 'text' | 'xml' | 'binary' | 'form' | 'none';

/** The single unnamed parameter type each body kind may call with its whole body. */
const WHOLE_BODY: Partial<Record<RpcBody, readonly string[]>> = {
  json: ['json', 'jsonb'],
  text: ['text'],
  xml: ['xml'],
  binary: ['bytea'],
};

const RAW_BODIES: ReadonlySet<RpcBody> = new Set(['text', 'xml', 'binary']);

/** A function's overloads the way PostgREST orders them: fewer parameters first. */
function compareOverloads(a: DbFunction, b: DbFunction): number {
  if (a.args.length !== b.args.length) return a.args.length - b.args.length;
  const da = a.description;
  const db = b.description;
  if (da !== db) {
    if (da === null) return -1;
    if (db === null) return 1;
    return da < db ? -1 : 1;
  }
  for (let i = 0; i < a.args.length; i++) {
    const x = a.args[i] as FunctionArg;
    const y = b.args[i] as FunctionArg;
    for (const [p, q] of [
      [x.name, y.name],
      [x.type, y.type],
      [x.castType, y.castType],
    ] as const) {
      if (p !== q) return p < q ? -1 : 1;
    }
    if (x.hasDefault !== y.hasDefault) return x.hasDefault ? -1 : 1;
    if (x.variadic !== y.variadic) return x.variadic ? 1 : -1;
  }
  return 0;
}

/** The callable overloads of `schema.name`, in PostgREST's order. */
export function overloadsOf(cache: SchemaCache, schema: string, name: string): DbFunction[] {
  return (cache.functions.get(qualified(schema, name)) ?? [])
    .filter((fn) => fn.callable)
    .sort(compareOverloads);
}

/** Whether the argument keys fit the parameters: all required ones, only known ones. */
function matchesParams(fn: DbFunction, keys: ReadonlySet<string>, body: RpcBody): boolean {
  if (fn.args.length === 0) return keys.size === 0 && !RAW_BODIES.has(body);
  const required = fn.args.filter((a) => !a.hasDefault).map((a) => a.name);
  const optional = new Set(fn.args.filter((a) => a.hasDefault).map((a) => a.name));
  for (const k of keys) if (!optional.has(k) && !required.includes(k)) return false;
  return required.every((r) => keys.has(r));
}

/** Called with the whole body as its one unnamed parameter (POST only). */
export const takesWholeBody = (fn: DbFunction, body: RpcBody): boolean =>
  fn.args.length === 1 &&
  fn.args[0]?.name === '' &&
  (WHOLE_BODY[body] ?? []).includes(fn.args[0].type);

const signature = (fn: DbFunction) =>
  `${fn.schema}.${fn.name}(${fn.args.map((a) => `${a.name} => ${a.type}`).join(', ')})`;

/**
 * Picks the overload of `schema.name` whose parameters match the argument keys, else the
 * one taking the whole body; PGRST202 when none does, PGRST203 when several do.
 */
export function findFunction(
  cache: SchemaCache,
  schema: string,
  name: string,
  keys: ReadonlySet<string>,
  body: RpcBody,
): DbFunction {
  const overloads = overloadsOf(cache, schema, name);
  const named = overloads.filter((fn) => matchesParams(fn, keys, body));
  const whole = named.length === 0 ? overloads.filter((fn) => takesWholeBody(fn, body)) : [];
  const chosen = named.length > 0 ? named : whole;
  if (chosen.length === 1) return chosen[0] as DbFunction;
  if (chosen.length > 1) {
    throw new RestError(
      300,
      'PGRST203',
      `Could not choose the best candidate function between: ${chosen.map(signature).join(', ')}`,
      null,
      'Try renaming the parameters or the function itself in the database so function overloading can be resolved',
    );
  }
  throw noFunction(cache, schema, name, [...keys].sort(), body, overloads);
}

function noFunction(
  cache: SchemaCache,
  schema: string,
  name: string,
  keys: string[],
  body: RpcBody,
  overloads: DbFunction[],
): RestError {
  const fn = `${schema}.${name}`;
  const params = keys.length === 0 ? ' without parameters' : `(${keys.join(', ')})`;
  const withParams =
    keys.length === 0
      ? ' without parameters'
      : ` with parameter${keys.length > 1 ? 's' : ''} ${keys.join(', ')}`;
  const onlyRaw = RAW_BODIES.has(body);
  const searched: Record<string, string> = {
    text: ' with a single unnamed text parameter',
    xml: ' with a single unnamed xml parameter',
    binary: ' with a single unnamed bytea parameter',
    json: `${withParams} or with a single unnamed json/jsonb parameter`,
  };
  let hint: string | null = null;
  if (!onlyRaw) {
    if (overloads.length === 0) {
      const names = [...cache.functions.values()]
        .flat()
        .filter((f) => f.callable && f.schema === schema)
        .map((f) => f.name);
      const guess = closestMatch([...new Set(names)], name, NAME_MIN_SCORE);
      if (guess) hint = `Perhaps you meant to call the function ${schema}.${guess}`;
    } else {
      const asText = (names: string[]) => `(${[...names].sort().join(', ')})`;
      const guess = closestMatch(
        overloads.map((o) => asText(o.args.map((a) => a.name))),
        asText(keys),
      );
      if (guess) hint = `Perhaps you meant to call the function ${fn}${guess}`;
    }
  }
  return new RestError(
    404,
    'PGRST202',
    `Could not find the function ${fn}${onlyRaw ? '' : params} in the schema cache`,
    `Searched for the function ${fn}${searched[body] ?? withParams}, but no matches were found in the schema cache.`,
    hint,
  );
}
