import { defineConfig } from 'vitest/config';

// Browser end-to-end tests: the built app (run `pnpm build` first) in Debian's Chromium.
export default defineConfig({
  test: {
    include: ['e2e/**/*.e2e.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
    reporters: ['default', 'json'],
    outputFile: { json: '.artifacts/e2e-report.json' },
  },
});
