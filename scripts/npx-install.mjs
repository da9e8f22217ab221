#!/usr/bin/env node
// The package as a newcomer gets it: `npm pack` of the current build, run with `npx -y` from an
// empty folder outside the checkout, installed into an npx cache of its own; every dependency
// comes from the npm registry (or the machine's npm cache of it) and better-sqlite3 builds from
// source (no prebuilt binary downloaded from elsewhere). Then the first run a README reader
// does: `keys create` makes the database and a key, and `mcp` serves it over stdio:
// initialize, tools/list, and a tools/call with that key.
// Exits non-zero, naming the step, when any of it fails. `.ci/run` runs it after the tests
// (which build dist/); run it by hand after `npm run build`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const started = Date.now();
const seconds = () => `${Math.round((Date.now() - started) / 1000)} s`;

if (!existsSync(join(root, 'dist/bundle/outreach.mjs'))) fail('pack', 'dist/ is not built; run `npm run build` first');

const scratch = mkdtempSync(join(tmpdir(), 'outreach-npx-'));
const elsewhere = join(scratch, 'empty');
const db = join(scratch, 'home', 'outreach.db');
mkdirSync(elsewhere);
const keep = process.env.NPX_INSTALL_KEEP === '1';
process.on('exit', () => {
  if (!keep) rmSync(scratch, { recursive: true, force: true });
});

// The npx cache (<cache>/_npx, where npx installs the package) is new for each run, so nothing
// from an earlier run is reused and nothing is left behind; the content cache beside it
// (<cache>/_cacache, tarballs the registry served before) is the machine's, so a dependency
// `npm ci` already downloaded is not downloaded again.
const cache = join(scratch, 'npm-cache');
mkdirSync(cache);
const shared = spawnSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).stdout?.trim();
if (shared && existsSync(join(shared, '_cacache'))) symlinkSync(join(shared, '_cacache'), join(cache, '_cacache'));
// A clean environment for npm and the CLI: the registry named, and none of the caller's
// OUTREACH_* or npm_* settings.
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OUTREACH_') && !/^npm_/i.test(k)));
Object.assign(env, {
  npm_config_registry: 'https://registry.npmjs.org/',
  npm_config_cache: cache,
  npm_config_prefer_offline: 'true',
  // Read by better-sqlite3's prebuild-install, which then builds from source instead of downloading.
  npm_config_build_from_source: 'true',
  npm_config_update_notifier: 'false',
  npm_config_fund: 'false',
  npm_config_audit: 'false',
  // `nodedir` (where node-gyp finds Node's headers) stays as the machine configures it.
  ...(process.env.npm_config_nodedir ? { npm_config_nodedir: process.env.npm_config_nodedir } : {}),
});

function fail(step, message) {
  process.stderr.write(`npx install: ${step} failed: ${message}\n`);
  process.exit(1);
}

// A step that hangs (a registry that stops answering) fails CI after 15 minutes instead of holding it.
function run(step, command, args, cwd, extra = {}) {
  const r = spawnSync(command, args, { cwd, env: { ...env, ...extra }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 15 * 60_000 });
  if (r.error) fail(step, `\`${command} ${args.join(' ')}\`: ${r.error.message}`);
  if (r.status !== 0) fail(step, `\`${command} ${args.join(' ')}\` exited ${r.status ?? r.signal}\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

// 1. Pack what `npm publish` would publish (dist/ as built; prepack would rebuild it).
const packed = JSON.parse(run('npm pack', 'npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], root));
// A `file:` spec, as npx treats a plain path to an existing file as a command to run.
const tarball = `file:${join(scratch, packed[0].filename)}`;
console.log(`packed ${packed[0].filename}: ${packed[0].entryCount} files, ${(packed[0].size / 1e6).toFixed(1)} MB (${seconds()})`);

// 2. The first npx call installs the package and its dependencies into npx's cache. `--version`
//    goes through the bin npx picks for the package (the one named like it).
const version = run('npx --version', 'npx', ['-y', tarball, '--version'], elsewhere).trim();
if (version !== pkg.version) fail('npx --version', `printed "${version}", expected ${pkg.version}`);
console.log(`npx -y ${packed[0].filename} --version: ${version} (installed from the registry, ${seconds()})`);

// 3. A first-time user's database and key, in a folder that does not exist yet.
const created = run('keys create', 'npx', ['-y', tarball, 'keys', 'create', '--env', 'test', '--db', db], elsewhere);
const key = /sk_test_[0-9A-Za-z]{32}/.exec(created)?.[0];
if (!key) fail('keys create', `no key in its output:\n${created}`);
if (!existsSync(db)) fail('keys create', `no database at ${db}`);
// Its next step is printed as npx runs it, not as a path into npx's cache.
const next = `npx -y ${pkg.name}@${pkg.version} credits add 1000 --db ${db}`;
if (!created.includes(next)) fail('keys create', `the next step is not printed as \`${next}\`:\n${created}`);

// 4. The stdio server as an MCP client starts it, speaking newline-delimited JSON-RPC.
const child = spawn('npx', ['-y', tarball, 'mcp', '--db', db], { cwd: elsewhere, env: { ...env, OUTREACH_API_KEY: key }, stdio: ['pipe', 'pipe', 'pipe'] });
let stderr = '';
child.stderr.on('data', (c) => {
  stderr += c;
});
const pending = new Map();
let buffered = '';
child.stdout.on('data', (chunk) => {
  buffered += chunk;
  for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
    const line = buffered.slice(0, nl).trim();
    buffered = buffered.slice(nl + 1);
    if (!line) continue;
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      fail('mcp', `stdout carried a line that is not JSON-RPC: ${line.slice(0, 200)}`);
    }
    pending.get(message.id)?.(message);
  }
});
const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
child.on('exit', (code) => {
  if (pending.size > 0) fail('mcp', `the server exited (${code}) with requests unanswered\n${stderr}`);
});
let nextId = 1;
function request(method, params) {
  const id = nextId++;
  const answer = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer to ${method} within 60 s\n${stderr}`)), 60_000);
    pending.set(id, (message) => {
      clearTimeout(timer);
      pending.delete(id);
      if (message.error) reject(new Error(`${method}: ${JSON.stringify(message.error)}`));
      else resolve(message.result);
    });
  });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
  return answer;
}

try {
  const init = await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'ci-npx-install', version: '1' } });
  if (init.serverInfo?.version !== pkg.version) throw new Error(`initialize: serverInfo ${JSON.stringify(init.serverInfo)}`);
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  const { tools } = await request('tools/list', {});
  const names = tools.map((t) => t.name);
  if (!names.includes('get_credits')) throw new Error(`tools/list has no get_credits: ${names.join(', ')}`);
  const credits = await request('tools/call', { name: 'get_credits', arguments: {} });
  if (credits.isError) throw new Error(`tools/call get_credits with the new key: ${JSON.stringify(credits.content)}`);
  console.log(`npx -y ${packed[0].filename} mcp: initialize, tools/list (${names.length} tools) and get_credits answered over stdio (${seconds()})`);
} catch (err) {
  child.kill('SIGTERM');
  fail('mcp', err.message);
}
// A client closing stdin ends the server.
child.stdin.end();
const code = await exited;
if (code !== 0) fail('mcp', `the server exited ${code} after stdin closed\n${stderr}`);
console.log(`npx install: passed in ${seconds()}`);
