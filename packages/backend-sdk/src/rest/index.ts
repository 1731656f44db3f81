/**
 * `@app/backend-sdk/rest` — the REST (PostgREST) capability, importable alone.
 */
export {
  type ElementOf,
  type OrderOptions,
  RestBuilder,
  type RestMethod,
  type RestRequest,
  type RestState,
} from './builder';
export {
  createRestClient,
  type InsertOptions,
  type MutationOptions,
  RestClient,
  type RestClientOptions,
  type RpcOptions,
  type SelectOptions,
  TableBuilder,
  type UpsertOptions,
} from './client';
export type { Column, FilterOperator, Filters, TextSearchOptions, ValueOf } from './filters';
export type { ParseSelect, SelectError } from './select';
export type {
  AnySchema,
  CountMethod,
  GenericFunction,
  GenericRelationship,
  GenericSchema,
  GenericTable,
  GenericView,
  Json,
  Relations,
  RestFailure,
  RestResult,
  RestResultOf,
  RestSuccess,
  SchemaName,
  SchemaOf,
} from './types';
export { arrayLiteral, type FilterValue, inList, quoteListValue } from './values';
