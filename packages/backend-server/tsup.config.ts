import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    cli: 'src/cli.ts',
    // `@app/backend-server/testing`: helpers for tests (see src/testing/index.ts).
    testing: 'src/testing/index.ts',
    // Loaded by each function's worker thread (see src/functions/index.ts).
    'functions-runtime': 'src/functions/worker-runtime.ts',
    // The embedded database's worker thread (see src/db/pglite-remote.ts).
    'pglite-thread': 'src/db/pglite-thread.ts',
    // Export's and import's copy thread (see src/data/copy.ts).
    'copy-thread': 'src/data/copy-thread.ts',
  },
  format: ['esm'],
  dts: {
    entry: {
      index: 'src/index.ts',
      testing: 'src/testing/index.ts',
      // The console API's wire types (types only: no JavaScript entry).
      'console-api': 'src/console/api-types.ts',
    },
  },
  tsconfig: 'tsconfig.build.json',
  target: 'node20',
  platform: 'node',
  clean: true,
});
