#!/usr/bin/env node
// Builds the server (`npm run build:server`: tsc, then the bundle bin/outreach.js runs) and the UI (`npm run build:ui`: Vite), in the
// current folder. With --if-stale (what `npm start` runs) a part is built only when its inputs
// changed since its last build or its output is missing: a SHA-256 of the inputs' paths and
// contents is kept in dist/.build-stamps.json. Contents, not times: a checkout that rewrites
// files without changing them rebuilds nothing, and an edit that keeps the old time still counts.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Each part: the npm script that builds it, what it reads, and what it must leave behind. */
export const PARTS = [
  {
    name: 'server',
    script: 'build:server',
    inputs: ['src', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json', 'scripts/bundle.mjs'],
    outputs: ['dist/cli/index.js', 'dist/bundle/outreach.mjs'],
  },
  { name: 'ui', script: 'build:ui', inputs: ['ui', 'package-lock.json'], outputs: ['dist/ui/dashboard/index.html', 'dist/ui/views'] },
];

const STAMPS = 'dist/.build-stamps.json';

function files(root, path) {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full)
    .sort()
    .flatMap((name) => files(root, join(path, name)));
}

/** The digest of a part's inputs: every file's path and content, in a fixed order. */
export function inputDigest(root, part) {
  const hash = createHash('sha256');
  for (const file of part.inputs.flatMap((p) => files(root, p))) {
    hash.update(`${relative(root, join(root, file))}\0`);
    hash.update(readFileSync(join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

function readStamps(root) {
  try {
    return JSON.parse(readFileSync(join(root, STAMPS), 'utf8'));
  } catch {
    return {};
  }
}

function writeStamp(root, name, digest) {
  const path = join(root, STAMPS);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify({ ...readStamps(root), [name]: digest }, null, 2)}\n`);
}

/** Whether a part must be built: an output is missing, or its inputs differ from its last build's. */
export function isStale(root, part, digest = inputDigest(root, part)) {
  if (part.outputs.some((o) => !existsSync(join(root, o)))) return true;
  return readStamps(root)[part.name] !== digest;
}

function build(root, ifStale) {
  for (const part of PARTS) {
    const digest = inputDigest(root, part);
    if (ifStale && !isStale(root, part, digest)) {
      process.stdout.write(`build: ${part.name} is up to date\n`);
      continue;
    }
    const run = spawnSync('npm', ['run', part.script, '--silent'], { cwd: root, stdio: 'inherit' });
    if (run.status !== 0) process.exit(run.status ?? 1);
    writeStamp(root, part.name, digest);
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const unknown = args.find((a) => a !== '--if-stale');
  if (unknown !== undefined) {
    process.stderr.write(`build: unknown argument "${unknown}" (only --if-stale)\n`);
    process.exit(2);
  }
  build(process.cwd(), args.includes('--if-stale'));
}
