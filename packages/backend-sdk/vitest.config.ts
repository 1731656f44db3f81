import { defineConfig } from 'vitest/config';
import { workspaceAliases } from '../../vitest.workspace-aliases.ts';

export default defineConfig({
  resolve: { alias: workspaceAliases },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 90_000,
    reporters: ['default', 'json'],
    outputFile: { json: '.artifacts/test-report.json' },
  },
});
