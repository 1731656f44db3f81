export { applyMigrations, applySeed, MigrationError } from './migrations';
export { type OpenDatabaseOptions, openDatabase } from './open';
export { ROLES_SQL } from './platform-sql';
export { asRequest, type RequestContext, readAsRequest } from './request';
export type {
  Database,
  PgErrorFields,
  Queryable,
  QueryResult,
  Row,
  Settled,
  Statement,
  Transaction,
  TransactionOptions,
} from './types';
export { pgError } from './types';
