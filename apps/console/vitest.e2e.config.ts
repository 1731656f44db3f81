import { defineConfig } from 'vitest/config';
import { workspaceAliases } from '../../vitest.workspace-aliases.ts';

// Browser end-to-end tests: the built console (run `pnpm build` first), served by a real
// backend-server started in each test file, in Debian's Chromium.
export default defineConfig({
  resolve: { alias: workspaceAliases },
  test: {
    include: ['e2e/**/*.e2e.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    // One worker runs the files one after another and keeps its modules: the server's source
    // is loaded (and its worker threads' scripts bundled) once, not once per file. Each file
    // still starts its own server and browser, and stops them in afterAll.
    isolate: false,
    reporters: ['default', 'json'],
    outputFile: { json: '.artifacts/e2e-report.json' },
  },
});
