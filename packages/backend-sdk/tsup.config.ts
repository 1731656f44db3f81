import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

/** One entry per independently importable module; each becomes a subpath export. */
export const entries = {
  index: 'src/index.ts',
  'rest/index': 'src/rest/index.ts',
  'auth/index': 'src/auth/index.ts',
  'functions/index': 'src/functions/index.ts',
  'storage/index': 'src/storage/index.ts',
  'tus/index': 'src/tus/index.ts',
  'upload-queue/index': 'src/upload-queue/index.ts',
  'realtime/index': 'src/realtime/index.ts',
  'webauthn/index': 'src/webauthn/index.ts',
  'oauth-server/index': 'src/oauth-server/index.ts',
  // Node-only; the rest of the SDK imports it on demand by its package name, in Node only.
  'node/index': 'src/node/index.ts',
};

export default defineConfig({
  entry: entries,
  format: ['esm', 'cjs'],
  dts: true,
  tsconfig: 'tsconfig.build.json',
  target: 'es2022',
  platform: 'neutral',
  splitting: true,
  treeshake: true,
  sourcemap: false,
  clean: true,
  // Sent in X-Client-Info.
  define: { __SDK_VERSION__: JSON.stringify(version) },
});
