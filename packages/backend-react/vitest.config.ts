import { defineConfig } from 'vitest/config';
import { workspaceAliases } from '../../vitest.workspace-aliases.ts';

export default defineConfig({
  resolve: { alias: workspaceAliases },
  test: {
    environment: 'happy-dom',
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts', 'test/**/*.test.tsx'],
    // One real backend-server for the run, started in Node (see test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    reporters: ['default', 'json'],
    outputFile: { json: '.artifacts/test-report.json' },
  },
});
