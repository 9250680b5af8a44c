// Vite build of the admin console: web/ -> dist/web, served by the server at MOUNT_PATH/admin. Relative asset URLs
// (base './') and a <base> element the server points at the mount make one build work under any MOUNT_PATH.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: './',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // A CSP without 'unsafe-inline': nothing may be inlined as a data: URL either.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: true,
  },
  server: {
    // `npx vite --config web/vite.config.ts` during development, against a server on :9000.
    proxy: { '/api/admin': 'http://127.0.0.1:9000' },
  },
});
