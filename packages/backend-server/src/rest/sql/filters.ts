import { arrayLiteral, quoteIdent, quoteJsonKey } from '../../db/quote';
import { RestError } from '../errors';
import type { Field, Filter, LogicTree, Operation } from '../parse/ast';
import type { Params } from './params';

/** What a level offers to filter on: its alias, columns and embeds. */
export interface Scope {
  /** Quoted alias of the level's relation. */
  alias: string;
  /** Display name in errors (`table`). */
  name: string;
  columns: Map<string, { type: string; baseType: string }>;
  /** Embeds at this level by name and alias → their SQL "found" expression. */
  embeds: Map<string, { found: string }>;
  /** Computed fields: functions of the row, by name → their call and result type. */
  computed?: Map<string, { sql: string; type: string }>;
}

const SQL_OPS: Record<string, string> = {
  eq: '=',
  neq: '<>',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
  like: 'LIKE',
  ilike: 'ILIKE',
  match: '~',
  imatch: '~*',
  isdistinct: 'IS DISTINCT FROM',
  cs: '@>',
  cd: '<@',
  ov: '&&',
  sl: '<<',
  sr: '>>',
  nxr: '&<',
  nxl: '&>',
  adj: '-|-',
};

const FTS_FUNCTIONS: Record<string, string> = {
  fts: 'to_tsquery',
  plfts: 'plainto_tsquery',
  phfts: 'phraseto_tsquery',
  wfts: 'websearch_to_tsquery',
};

/** The error PostgREST reports for a column the relation does not have. */
export const unknownColumn = (table: string, column: string) =>
  new RestError(400, '42703', `column ${table}.${column} does not exist`, null, null);

/**
 * `"alias"."col"->'a'->>'b'` after checking the column exists; a computed field is its
 * function called with the row (PostgREST leaves that to Postgres' `row.fn` notation).
 */
export function fieldSql(scope: Scope, field: Field): string {
  let sql: string;
  if (scope.columns.has(field.name)) sql = `${scope.alias}.${quoteIdent(field.name)}`;
  else {
    const computed = scope.computed?.get(field.name);
    if (!computed) throw unknownColumn(scope.name, field.name);
    sql = field.path.length ? `(${computed.sql})` : computed.sql;
  }
  for (const step of field.path) sql += `${step.arrow}${quoteJsonKey(step.key)}`;
  return sql;
}

/** The type a field's values have: the column's, or text/json(b) after a JSON path. */
export function fieldType(scope: Scope, field: Field): string {
  const column = scope.columns.get(field.name) ?? scope.computed?.get(field.name);
  const base = column
    ? 'baseType' in column
      ? column.baseType
      : column.type.replace(/\(.*\)$/, '')
    : 'text';
  const last = field.path[field.path.length - 1];
  if (!last) return base;
  if (last.arrow === '->>') return 'text';
  return base === 'json' ? 'json' : 'jsonb';
}

const TEXT_OPS = new Set(['like', 'ilike', 'match', 'imatch']);

/**
 * A value bound as text and cast to `type` by Postgres, so both drivers send the same bytes
 * (no client-side serialisation by inferred type).
 */
export const typed = (params: Params, value: string, type: string) =>
  type === 'text' ? `${params.add(value)}::text` : `CAST(${params.add(value)}::text AS ${type})`;

function operationSql(expr: string, type: string, operation: Operation, params: Params): string {
  const isTsvector = type === 'tsvector';
  switch (operation.kind) {
    case 'in':
      return `${expr} = ANY(${typed(params, arrayLiteral(operation.values), `${type}[]`)})`;
    case 'is':
      return `${expr} IS ${operation.value === 'not_null' ? 'NOT NULL' : operation.value.toUpperCase()}`;
    case 'fts': {
      const config = operation.config ? `${params.add(operation.config)}::text::regconfig, ` : '';
      const doc = isTsvector ? expr : `to_tsvector(${config}${expr})`;
      return `${doc} @@ ${FTS_FUNCTIONS[operation.op]}(${config}${params.add(operation.value)}::text)`;
    }
    case 'simple': {
      const op = SQL_OPS[operation.op] as string;
      const value =
        operation.op === 'like' || operation.op === 'ilike'
          ? operation.value.replace(/\*/g, '%')
          : operation.value;
      const valueType = TEXT_OPS.has(operation.op) ? 'text' : type;
      if (operation.quantifier) {
        return `${expr} ${op} ${operation.quantifier.toUpperCase()}(${typed(params, value, `${valueType}[]`)})`;
      }
      return `${expr} ${op} ${typed(params, value, valueType)}`;
    }
  }
}

/** One filter as a boolean SQL expression. */
export function filterSql(scope: Scope, filter: Filter, params: Params): string {
  const { field, operation } = filter;
  const embed =
    field.path.length === 0 && !scope.columns.has(field.name)
      ? scope.embeds.get(field.name)
      : undefined;
  let sql: string;
  if (embed) {
    if (operation.kind !== 'is' || (operation.value !== 'null' && operation.value !== 'not_null')) {
      throw new RestError(
        400,
        'PGRST120',
        `Bad operator on the '${field.name}' embedded resource`,
        'Only is null or not is null filters are allowed on embedded resources',
      );
    }
    sql = operation.value === 'null' ? `${embed.found} IS NOT TRUE` : `${embed.found} IS TRUE`;
  } else {
    const expr = fieldSql(scope, field);
    sql = operationSql(expr, fieldType(scope, field), operation, params);
  }
  return filter.negate ? `NOT (${sql})` : sql;
}

/** An and/or tree as SQL. */
export function logicSql(scope: Scope, tree: LogicTree, params: Params): string {
  const parts = tree.children.map((child) =>
    child.kind === 'logic' ? logicSql(scope, child, params) : filterSql(scope, child, params),
  );
  const joined = parts.length
    ? `(${parts.join(tree.op === 'and' ? ' AND ' : ' OR ')})`
    : tree.op === 'and'
      ? 'TRUE'
      : 'FALSE';
  return tree.negate ? `NOT ${joined}` : joined;
}
