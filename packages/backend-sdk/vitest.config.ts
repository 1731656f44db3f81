import { defineConfig } from 'vitest/config';
import { workspaceAliases } from '../../vitest.workspace-aliases.ts';

// Files that stub globals (`window`, `navigator`) or fake timers for the whole file run
// isolated: a module the SDK evaluates while a stub is in place must not be shared.
const STUBBING = [
  'test/tus/offline.test.ts',
  'test/unit/realtime/client.test.ts',
  'test/unit/auth/lock.test.ts',
  'test/unit/http/http.test.ts',
];

export default defineConfig({
  resolve: { alias: workspaceAliases },
  test: {
    testTimeout: 30_000,
    hookTimeout: 90_000,
    reporters: ['default', 'json'],
    outputFile: { json: '.artifacts/test-report.json' },
    projects: [
      // The rest share their worker's modules (`isolate: false`): the server's source, which
      // most files start in-process, loads once per worker instead of once per file. Each
      // file still starts and stops its own server.
      {
        extends: true,
        test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: STUBBING, isolate: false },
      },
      { extends: true, test: { name: 'isolated', include: STUBBING } },
    ],
  },
});
