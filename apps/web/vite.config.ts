import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { workspaceAliases } from '../../vitest.workspace-aliases.ts';

export default defineConfig({
  plugins: [
    react(),
    // The web app manifest and the app-wide service worker (src/offline/sw.ts, Workbox),
    // registered by src/offline/register.ts after the first paint.
    VitePWA({
      strategies: 'injectManifest',
      srcDir: 'src/offline',
      filename: 'sw.ts',
      injectRegister: false,
      manifest: {
        name: 'Drive',
        short_name: 'Drive',
        description: 'Your files, on every device — also offline.',
        start_url: '/files',
        scope: '/',
        display: 'standalone',
        background_color: '#ffffff',
        theme_color: '#1d4ed8',
        icons: [
          { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png' },
          { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png' },
          {
            src: '/icons/icon-512-maskable.png',
            sizes: '512x512',
            type: 'image/png',
            purpose: 'maskable',
          },
        ],
      },
      injectManifest: {
        // The shell: scripts, styles, icons. Not index.html: the page is kept as the server
        // answers it (with its run-time backend settings), see src/offline/sw.ts.
        globPatterns: ['**/*.{js,css,svg,png,webmanifest}'],
        globIgnores: ['**/*.map', 'sw.js'],
        maximumFileSizeToCacheInBytes: 4 * 1024 * 1024,
        buildPlugins: { vite: [] },
      },
    }),
  ],
  resolve: { alias: workspaceAliases },
  build: {
    target: 'es2022',
    sourcemap: true,
    rolldownOptions: {
      output: {
        codeSplitting: {
          // The message compiler is loaded with the first catalogue, never with the app's code
          // (left to itself, the bundler may merge it into the entry chunk).
          groups: [
            {
              name: 'compileMessage',
              test: /@lingui[\\/]message-utils|@messageformat|[\\/]moo[\\/]/,
            },
          ],
        },
      },
    },
  },
  server: { host: '127.0.0.1', port: 5173 },
});
