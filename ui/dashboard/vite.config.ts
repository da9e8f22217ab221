import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * The dashboard SPA. Served by the server under /app with hashed, long-cached assets; the
 * manifest lets the server (and the bench) find the entry without guessing file names.
 */
export default defineConfig({
  root: here,
  base: '/app/',
  plugins: [react()],
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../../dist/ui/dashboard', import.meta.url)),
    emptyOutDir: true,
    manifest: true,
    sourcemap: false,
    // One chunk of about 200 KB gzipped (React, TanStack Query, Recharts); the budget is 300 KB.
    chunkSizeWarningLimit: 900,
    // No inline script or data: the CSP of /app allows scripts from 'self' only.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
});
