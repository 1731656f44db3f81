export { applyMigrations, applySeed, MigrationError } from './migrations';
export { type OpenDatabaseOptions, openDatabase } from './open';
export { ROLES_SQL } from './platform-sql';
export {
  API_ROLE,
  asRequest,
  isRoleRefusal,
  mayBecomeSql,
  type RequestContext,
  readAsRequest,
  switchRoleSql,
} from './request';
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
