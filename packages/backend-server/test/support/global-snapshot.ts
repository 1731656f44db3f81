import { openDatabase, ROLES_SQL } from '../../src/db/index';
import { SERVICES } from '../../src/service-registry';

/**
 * globalSetup: builds the PGlite platform snapshot once before the workers start, so
 * parallel test files restore it instead of each paying initdb.
 */
export default async function setup() {
  const platformSql = [
    ROLES_SQL,
    ...SERVICES.flatMap((m) => (m.platformSql ? [m.platformSql] : [])),
  ];
  const db = await openDatabase({ platformSql });
  await db.close();
}
