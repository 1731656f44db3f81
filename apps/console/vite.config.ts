import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { workspaceAliases } from '../../vitest.workspace-aliases.ts';

// Served by backend-server under /_console/ (see packages/backend-server/src/console).
export default defineConfig({
  base: '/_console/',
  plugins: [react()],
  resolve: { alias: workspaceAliases },
  build: { target: 'es2022', sourcemap: true },
  server: { host: '127.0.0.1', port: 5174 },
});
