/**
 * Type-level parser of `select` strings: infers the row shape of `select('id, name:title,
 * author:users(name), comments(count)')` from a generated `Database` type. Columns,
 * aliases, casts, JSON paths, embeds (to-one → object | null, `!inner` → object,
 * to-many → array), spreads and aggregates. Unknown columns become {@link SelectError}.
 */
import type { GenericRelationship, GenericSchema, Json } from './types';

declare const SELECT_ERROR: unique symbol;

/** Marks a select item that does not match the schema; the message says why. */
export interface SelectError<Message extends string> {
  readonly [SELECT_ERROR]: Message;
}

/** The first error message in a parsed row (embeds included), or never. */
type ErrorIn<T, Depth extends unknown[] = []> = Depth['length'] extends 6
  ? never
  : T extends { readonly [SELECT_ERROR]: infer M }
    ? M
    : T extends readonly (infer E)[]
      ? ErrorIn<E, [...Depth, 0]>
      : T extends object
        ? string extends keyof T
          ? never // a JSON object, not a row
          : { [K in keyof T]-?: ErrorIn<T[K], [...Depth, 0]> }[keyof T]
        : never;

/**
 * The type of a select string argument: `Q` itself when every column and relation it names
 * exists, else `Q` branded with the error, so the call does not compile and says why.
 */
export type CheckedSelect<Row, Q extends string> = 0 extends 1 & Row
  ? Q // untyped rows
  : [ErrorIn<Row>] extends [never]
    ? Q
    : Q & { error: ErrorIn<Row> };

type WS = ' ' | '\n' | '\t' | '\r';
type Trim<S extends string> = S extends `${WS}${infer R}`
  ? Trim<R>
  : S extends `${infer R}${WS}`
    ? Trim<R>
    : S;

/** Splits on commas outside parentheses (tail-recursive, one character at a time). */
type Split<
  S extends string,
  Depth extends unknown[] = [],
  Cur extends string = '',
  Acc extends string[] = [],
> = S extends `${infer C}${infer Rest}`
  ? C extends '('
    ? Split<Rest, [...Depth, 0], `${Cur}${C}`, Acc>
    : C extends ')'
      ? Split<Rest, Depth extends [unknown, ...infer D] ? D : [], `${Cur}${C}`, Acc>
      : C extends ','
        ? Depth extends []
          ? Split<Rest, Depth, '', [...Acc, Trim<Cur>]>
          : Split<Rest, Depth, `${Cur}${C}`, Acc>
        : Split<Rest, Depth, `${Cur}${C}`, Acc>
  : Trim<Cur> extends ''
    ? Acc
    : [...Acc, Trim<Cur>];

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (
  x: infer I,
) => void
  ? I
  : never;

type CastType<T extends string> = T extends
  | 'int'
  | 'int2'
  | 'int4'
  | 'int8'
  | 'integer'
  | 'bigint'
  | 'smallint'
  | 'numeric'
  | 'float'
  | 'float4'
  | 'float8'
  | 'real'
  | 'double precision'
  ? number
  : T extends 'text' | 'varchar' | 'char' | 'uuid' | 'date' | 'timestamp' | 'timestamptz'
    ? string
    : T extends 'bool' | 'boolean'
      ? boolean
      : T extends 'json' | 'jsonb'
        ? Json
        : unknown;

type Relations<S extends GenericSchema> = S['Tables'] & S['Views'];

type LastSegment<P extends string> = P extends `${string}->>${infer R}`
  ? LastSegment<R>
  : P extends `${string}->${infer R}`
    ? LastSegment<R>
    : P;

/** Type of a plain (possibly cast or JSON-path) column expression. */
type ColumnItem<
  Row,
  Alias extends string | null,
  Expr extends string,
> = Expr extends `${infer E}::${infer T}`
  ? { [K in Alias extends string ? Alias : ColumnKey<E>]: CastType<Trim<T>> }
  : Expr extends `${infer C}->>${string}`
    ? C extends keyof Row
      ? { [K in Alias extends string ? Alias : LastSegment<Expr>]: string }
      : SelectError<`column '${C}' does not exist`>
    : Expr extends `${infer C}->${string}`
      ? C extends keyof Row
        ? { [K in Alias extends string ? Alias : LastSegment<Expr>]: Json }
        : SelectError<`column '${C}' does not exist`>
      : Expr extends keyof Row
        ? { [K in Alias extends string ? Alias : Expr]: Row[Expr] }
        : Expr extends 'count'
          ? { [K in Alias extends string ? Alias : 'count']: number }
          : SelectError<`column '${Expr}' does not exist`>;

type ColumnKey<E extends string> = E extends `${string}->${string}` ? LastSegment<E> : E;

type Unquote<S extends string> = S extends `"${infer I}"` ? I : S;

/** The table name, hint and join type of `rel!hint!inner`. */
type EmbedName<N extends string> = N extends `${infer T}!${infer A}!${infer B}`
  ? {
      table: T;
      hint: Exclude<A | B, 'inner' | 'left'>;
      inner: 'inner' extends A | B ? true : false;
    }
  : N extends `${infer T}!${infer A}`
    ? { table: T; hint: Exclude<A, 'inner' | 'left'>; inner: A extends 'inner' ? true : false }
    : { table: N; hint: never; inner: false };

/** The relation an embed refers to: by name, or through a foreign key or column hint. */
type EmbedTarget<
  S extends GenericSchema,
  Rels,
  Name extends string,
> = Name extends keyof Relations<S>
  ? Name
  : Rels extends readonly GenericRelationship[]
    ? Extract<Rels[number], { foreignKeyName: Name } | { columns: [Name] }>['referencedRelation']
    : never;

/** The foreign keys of the current relation to `Target`, narrowed by the embed's hint. */
type Forward<Rels, Target, Hint> = Rels extends readonly GenericRelationship[]
  ? [Hint] extends [never]
    ? Extract<Rels[number], { referencedRelation: Target }>
    : Extract<
        Rels[number],
        { referencedRelation: Target } & ({ foreignKeyName: Hint } | { columns: [Hint] })
      >
  : never;

/** True when a column of the foreign key `R` is nullable in `Row`. */
type NullableKey<Row, R> = R extends { columns: infer C extends readonly string[] }
  ? true extends {
      [K in keyof C]: C[K] extends keyof Row ? (null extends Row[C[K]] ? true : false) : false;
    }[number]
    ? true
    : false
  : false;

/**
 * How `Target` embeds in the current relation: `many` (one-to-many), `one` (many-to-one
 * through a non-null foreign key), or `maybe` (through a nullable key, or one-to-one from
 * the referenced side).
 */
type Cardinality<S extends GenericSchema, Row, Current, Rels, Target, Hint> =
  Forward<Rels, Target, Hint> extends infer F
    ? [F] extends [never]
      ? Target extends keyof Relations<S>
        ? Relations<S>[Target] extends {
            Relationships: infer TR extends readonly GenericRelationship[];
          }
          ? Extract<TR[number], { referencedRelation: Current; isOneToOne: true }> extends never
            ? 'many'
            : 'maybe'
          : 'many'
        : 'many'
      : true extends NullableKey<Row, F>
        ? 'maybe'
        : 'one'
    : never;

type EmbedItem<
  S extends GenericSchema,
  Row,
  Current,
  Rels,
  Alias extends string | null,
  Name extends string,
  Inner extends string,
> =
  EmbedName<Name> extends { table: infer T extends string; hint: infer H; inner: infer I }
    ? [EmbedTarget<S, Rels, T>] extends [never]
      ? SelectError<`could not find a relation '${T}'`>
      : [EmbedTarget<S, Rels, T>] extends [infer Target extends string & keyof Relations<S>]
        ? {
            [K in Alias extends string ? Alias : T]: Inner extends ''
              ? never
              : ParseSelect<
                    S,
                    Relations<S>[Target]['Row'],
                    Target,
                    Relations<S>[Target]['Relationships'],
                    Inner
                  > extends infer Child
                ? Cardinality<S, Row, Current, Rels, Target, H> extends infer C
                  ? C extends 'many'
                    ? Child[]
                    : C extends 'one'
                      ? Child
                      : I extends true
                        ? Child
                        : Child | null
                  : never
                : never;
          }
        : SelectError<`could not find a relation '${T}'`>
    : never;

type ItemType<S extends GenericSchema, Row, Current, Rels, Item extends string> = Item extends '*'
  ? Row
  : Item extends `...${infer Spread}`
    ? ItemType<S, Row, Current, Rels, Trim<Spread>> extends infer E
      ? E extends Record<string, infer V>
        ? [V] extends [(infer O)[]]
          ? O
          : null extends V
            ? { [K in keyof NonNullable<V>]: NonNullable<V>[K] | null }
            : V
        : E
      : never
    : Item extends 'count()'
      ? { count: number }
      : Item extends `${infer Alias}:${infer Rest}`
        ? Alias extends `${string}(${string}`
          ? ItemWithAlias<S, Row, Current, Rels, null, Item> // the ':' is inside an embed
          : Rest extends `:${string}`
            ? ColumnItem<Row, null, Unquote<Item>>
            : ItemWithAlias<S, Row, Current, Rels, Trim<Alias>, Trim<Rest>>
        : ItemWithAlias<S, Row, Current, Rels, null, Item>;

type ItemWithAlias<
  S extends GenericSchema,
  Row,
  Current,
  Rels,
  Alias extends string | null,
  Expr extends string,
> = Expr extends `${infer Col}.${infer Agg extends 'sum' | 'avg' | 'min' | 'max' | 'count'}()${string}`
  ? {
      [K in Alias extends string ? Alias : Agg]: Agg extends 'count' | 'sum' | 'avg'
        ? number
        : NonNullable<ValueOfCol<Row, Col>>;
    }
  : Expr extends `${infer Name}(${infer Inner})`
    ? EmbedItem<S, Row, Current, Rels, Alias, Trim<Name>, Trim<Inner>>
    : ColumnItem<Row, Alias, Unquote<Expr>>;

type ValueOfCol<Row, C> = C extends keyof Row ? Row[C] : unknown;

/**
 * The row type of `select(Q)` on relation `Current` (row `Row`, foreign keys `Rels`) of
 * schema `S`. Untyped rows (`any`) give `any`.
 */
export type ParseSelect<
  S extends GenericSchema,
  Row,
  Current,
  Rels,
  Q extends string,
> = 0 extends 1 & Row
  ? // biome-ignore lint/suspicious/noExplicitAny: untyped rows stay untyped
    any
  : string extends Q
    ? Row
    : Split<Q> extends infer Items extends string[]
      ? Items extends []
        ? Row
        : Simplify<
            UnionToIntersection<
              { [I in keyof Items]: ItemType<S, Row, Current, Rels, Items[I]> }[number]
            >
          >
      : never;
