export { applyMigrations, applySeed, MigrationError } from './migrations';
export { type OpenDatabaseOptions, openDatabase } from './open';
export { ROLES_SQL } from './platform-sql';
export { asRequest, type RequestContext } from './request';
export type {
  Database,
  PgErrorFields,
  Queryable,
  QueryResult,
  Row,
  Transaction,
  TransactionOptions,
} from './types';
export { pgError } from './types';
