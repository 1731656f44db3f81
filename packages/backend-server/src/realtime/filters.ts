/**
 * postgres_changes `filter` strings as the hosted realtime service reads them:
 * `col=op.value`, several joined by commas (AND), any operator negated with `not.`.
 *
 * Operators: eq, neq, lt, lte, gt, gte, in, like, ilike, is, match, imatch, isdistinct (the
 * set realtime-js's `postgresChangesFilter()` builds). Values are cast to the column's type in
 * the database; `in.(a,b,"c d")` becomes the array literal `{a,b,"c d"}` cast to the column's
 * array type. A value may be double-quoted (`eq."a,b"`, `\` escapes inside).
 */
import { pgError } from '../db/types';

export const FILTER_OPS = [
  'eq',
  'neq',
  'lt',
  'lte',
  'gt',
  'gte',
  'in',
  'like',
  'ilike',
  'is',
  'match',
  'imatch',
  'isdistinct',
] as const;

export type FilterOp = (typeof FILTER_OPS)[number];

/**
 * One filter condition: `[column, op, value, negate]`; an `in` value is a Postgres array
 * literal (`{a,b}`).
 */
export type Filter = [column: string, op: FilterOp, value: string, negate: boolean];

const OPS = new Set<string>(FILTER_OPS);

/** How the hosted service prints a list of strings in its error texts. */
const listText = (items: string[]) => `[${items.map((s) => JSON.stringify(s)).join(', ')}]`;

/**
 * Splits on commas outside parentheses and quotes. A quote opens only after `.`, `(` or `,`
 * (so one inside a bare value is literal); inside quotes `\` escapes the next character.
 */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let prev = '';
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quoted) {
      if (ch === '\\' && i + 1 < text.length) {
        current += ch + text[++i];
        prev = text[i] as string;
        continue;
      }
      if (ch === '"') quoted = false;
      current += ch;
      prev = ch;
      continue;
    }
    if (ch === '"' && (prev === '.' || prev === '(' || prev === ',')) quoted = true;
    else if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    else if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
      prev = '';
      continue;
    }
    current += ch;
    prev = ch;
  }
  parts.push(current);
  return parts;
}

/** `"…"` (with `\` escapes) → its content; anything else, or a malformed quote, as is. */
function unquote(value: string): string {
  if (!value.startsWith('"')) return value;
  let out = '';
  for (let i = 1; i < value.length; i++) {
    const ch = value[i] as string;
    if (ch === '"') return i === value.length - 1 ? out : value;
    if (ch === '\\') {
      if (i + 1 >= value.length) return value;
      out += value[++i];
    } else out += ch;
  }
  return value;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

function parseSegment(segment: string): Parsed<Filter> {
  const trimmed = segment.trim();
  if (trimmed === '') {
    return { ok: false, error: 'filter must not contain empty segments (check for extra commas)' };
  }
  const eq = trimmed.indexOf('=');
  if (eq < 0) return { ok: false, error: listText([trimmed]) };
  const column = trimmed.slice(0, eq);
  let rest = trimmed.slice(eq + 1);
  const negate = rest.startsWith('not.');
  if (negate) rest = rest.slice(4);
  const dot = rest.indexOf('.');
  if (dot < 0) return { ok: false, error: listText([rest]) };
  const op = rest.slice(0, dot);
  const value = rest.slice(dot + 1);
  if (!OPS.has(op)) return { ok: false, error: listText([op, value]) };
  if (op === 'in') {
    if (value.length < 2 || !value.startsWith('(') || !value.endsWith(')')) {
      return { ok: false, error: '`in` filter value must be wrapped by parentheses' };
    }
    return { ok: true, value: [column, 'in', `{${value.slice(1, -1)}}`, negate] };
  }
  return { ok: true, value: [column, op as FilterOp, unquote(value), negate] };
}

/** Parses a `filter` string; an empty one is no filter. The error is the `system` text. */
export function parseFilters(
  filter: string,
): { ok: true; filters: Filter[] } | { ok: false; error: string } {
  const trimmed = filter.trim();
  if (trimmed === '') return { ok: true, filters: [] };
  const filters: Filter[] = [];
  for (const segment of splitTopLevel(trimmed)) {
    const parsed = parseSegment(segment);
    if (!parsed.ok) return { ok: false, error: `Error parsing \`filter\` params: ${parsed.error}` };
    filters.push(parsed.value);
  }
  return { ok: true, filters };
}

const CONDITION_NAMES: Record<string, string> = {
  P0001: 'raise_exception',
  '22P02': 'invalid_text_representation',
  '22007': 'invalid_datetime_format',
  '22008': 'datetime_field_overflow',
  '22003': 'numeric_value_out_of_range',
  '22023': 'invalid_parameter_value',
  '2201B': 'invalid_regular_expression',
  '42704': 'undefined_object',
};

/** A database error as the hosted service quotes it after `Exception: `. */
export function exceptionText(error: unknown): string {
  const pg = pgError(error);
  if (!pg) return error instanceof Error ? error.message : String(error);
  const name = CONDITION_NAMES[pg.code];
  return `ERROR ${pg.code} ${name ? `(${name}) ` : ''}${pg.message}`;
}

/**
 * `realtime.check_filters(entity, role, filters)` raises the hosted service's error for a
 * filter it would refuse (unknown or unreadable column, a value that does not cast, `in` with
 * more than 100 values, `is` with another keyword or on a non-boolean column, like/ilike or
 * match/imatch on a column type without that operator, a bad regular expression);
 * `realtime.filter_sql(filter, n, type)` is the WHERE condition for filter `n` of `$2`.
 */
export const FILTERS_SQL = /* sql */ `
create or replace function realtime.check_filters(entity regclass, role text, filters jsonb)
  returns void language plpgsql as $f$
declare
  f jsonb;
  col_type regtype;
  op text;
  val text;
  n int;
begin
  for f in select value from jsonb_array_elements(coalesce(filters, '[]'::jsonb)) loop
    op := f ->> 1;
    val := f ->> 2;
    col_type := null;
    select a.atttypid::regtype into col_type
      from pg_attribute a
     where a.attrelid = entity and a.attname = f ->> 0 and a.attnum > 0 and not a.attisdropped
       and has_column_privilege(role, entity, a.attnum, 'SELECT');
    if col_type is null then
      raise exception 'invalid column for filter %', f ->> 0;
    end if;
    if op = 'in' then
      execute format('select coalesce(array_length($1::%s[], 1), 0)', col_type) into n using val;
      if n > 100 then
        raise exception 'too many values for \`in\` filter. Maximum 100';
      end if;
    elsif op = 'is' then
      if val not in ('null', 'true', 'false', 'unknown') then
        raise exception 'invalid value for is filter: must be null, true, false, or unknown';
      end if;
      if val <> 'null' and col_type <> 'boolean'::regtype then
        raise exception 'is % filter requires a boolean column, got %', val, col_type;
      end if;
    elsif op in ('like', 'ilike') then
      if not exists (select 1 from pg_operator where oprname = '~~' and oprleft = col_type) then
        raise exception 'operator % requires a text-compatible column type, got %', op, col_type;
      end if;
    elsif op in ('match', 'imatch') then
      if not exists (
        select 1 from pg_operator
         where oprname = case when op = 'imatch' then '~*' else '~' end
           and oprleft = col_type and oprright = col_type and oprresult = 'boolean'::regtype)
      then
        raise exception 'operator % requires a text-compatible column type, got %', op, col_type;
      end if;
      begin
        perform '' ~ val;
      exception when others then
        raise exception 'invalid regular expression for % filter: %', op, sqlerrm;
      end;
    else
      execute format('select $1::%s', col_type) using val;
    end if;
  end loop;
end
$f$;

create or replace function realtime.filter_sql(f jsonb, n int, col_type text)
  returns text language sql immutable as $f$
  select case when (f ->> 3)::boolean then 'not (' || c || ')' else c end
    from (select case f ->> 1
      when 'in' then format('%I = any(($2 -> %s ->> 2)::%s[])', f ->> 0, n, col_type)
      when 'is' then format('%I is %s', f ->> 0, case f ->> 2
        when 'null' then 'null' when 'true' then 'true' when 'false' then 'false'
        when 'unknown' then 'unknown' end)
      when 'isdistinct' then
        format('%I is distinct from ($2 -> %s ->> 2)::%s', f ->> 0, n, col_type)
      else format('%I %s ($2 -> %s ->> 2)::%s', f ->> 0, case f ->> 1
        when 'eq' then '=' when 'neq' then '<>' when 'lt' then '<' when 'lte' then '<='
        when 'gt' then '>' when 'gte' then '>=' when 'like' then 'like'
        when 'ilike' then 'ilike' when 'match' then '~' when 'imatch' then '~*' end,
        n, col_type)
    end as c) x
$f$;
`;
