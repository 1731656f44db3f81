import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', cli: 'src/cli.ts', 'pglite-thread': 'src/db/pglite-thread.ts' },
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts' } },
  tsconfig: 'tsconfig.build.json',
  target: 'node20',
  platform: 'node',
  clean: true,
});
