import type { TestProject } from 'vitest/node';
import { startCluster } from './postgres-cluster';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin URL of the run's PostgreSQL cluster (only in the `postgres` project). */
    postgresAdminUrl: string | undefined;
  }
}

/** globalSetup of the `postgres` project: one cluster for the whole run. */
export default async function setup(project: TestProject) {
  const cluster = await startCluster();
  project.provide('postgresAdminUrl', cluster.url);
  return () => cluster.stop();
}
