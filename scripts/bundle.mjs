#!/usr/bin/env node
// Bundles the compiled CLI (dist/cli/index.js, from tsc) into dist/bundle/, which bin/outreach.js
// runs. Why: a cold start loaded about 770 modules, and resolving, reading and compiling each one
// was most of the time to a healthy /health (bench/METHOD.md, "Cold start"). The bundle holds our
// code and the ES-module packages it imports (zod, drizzle-orm, the MCP SDK); CommonJS and native
// packages, and those loaded only on first use (the AI SDK, undici), stay in node_modules, loaded
// by Node as before. Code loaded with `await import()` stays in chunks of its own, loaded on
// first use as before. dist/**/*.js stays as tsc wrote it (the bench and tools import it).
import { rmSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist/bundle');

/**
 * Left to Node: CommonJS and native packages (a bundle would gain little and could break their
 * file lookups), and packages only loaded on first use.
 */
const EXTERNAL = [
  '@ai-sdk/openai-compatible',
  // CommonJS, loaded on the first HubSpot call (its node-fetch pulls in Node's deprecated punycode).
  '@hubspot/api-client',
  'ai',
  'better-sqlite3',
  'cli-progress',
  'compression',
  'cookie',
  'cors',
  'express',
  'express-static-gzip',
  'helmet',
  'path-to-regexp',
  'pino',
  'undici',
];
const external = (id) => id.startsWith('node:') || EXTERNAL.some((name) => id === name || id.startsWith(`${name}/`));

/**
 * Each module finds files next to itself (`new URL('../../dist/ui/views/', import.meta.url)`);
 * inside the bundle import.meta.url would be the bundle's, so each module's own URL is put back,
 * written relative to the bundle's folder, where every chunk is.
 */
const ownUrls = {
  name: 'own-import-meta-url',
  transform(code, id) {
    if (!code.includes('import.meta.url') || id.startsWith('\0')) return null;
    const path = relative(OUT, id).split(sep).join('/');
    return { code: code.replaceAll('import.meta.url', `new URL(${JSON.stringify(path)}, import.meta.url).href`), map: null };
  },
};

rmSync(OUT, { recursive: true, force: true });
const bundle = await rolldown({
  input: join(ROOT, 'dist/cli/index.js'),
  platform: 'node',
  external,
  plugins: [ownUrls],
  logLevel: 'warn',
});
await bundle.write({
  dir: OUT,
  format: 'esm',
  entryFileNames: 'outreach.mjs',
  chunkFileNames: '[name]-[hash].mjs',
  sourcemap: true,
});
await bundle.close();
