import { fileURLToPath } from 'node:url';
import { constants } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { compression, defineAlgorithm } from 'vite-plugin-compression2';

const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * The dashboard SPA. Served by the server under /app with hashed, long-cached assets; the
 * manifest lets the server (and the bench) find the entry without guessing file names. Each
 * asset over 1 KB also gets a brotli (`.br`) and a gzip (`.gz`) file beside it, compressed once
 * here at the highest levels, which the server sends to browsers that accept them.
 */
export default defineConfig({
  root: here,
  base: '/app/',
  plugins: [
    react(),
    compression({
      algorithms: [defineAlgorithm('brotliCompress', { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }), defineAlgorithm('gzip', { level: 9 })],
      threshold: 1024,
      logLevel: 'silent',
    }),
  ],
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
