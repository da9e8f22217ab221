#!/usr/bin/env node
// Runs the official MCP conformance suite (@modelcontextprotocol/conformance) against this
// server's streamable HTTP endpoint. The suite's client sends no credentials, so it talks to a
// small proxy that adds the fixture's test key to every request, as an MCP host configured
// with the key would. The suite needs Node 22 (it imports fs.globSync); npx fetches node@22
// from the registry when the running Node is older.
//
//   npm run build && node scripts/conformance.mjs            # the scenarios that apply
//   node scripts/conformance.mjs --all                       # every server scenario, for the record
//   node scripts/conformance.mjs ping tools-list             # named scenarios
//
// Exit status 0 when every applicable scenario passes.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, readdirSync, existsSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SUITE = '@modelcontextprotocol/conformance@0.1.16';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/outreach.js');
const FIXTURE = join(ROOT, 'test/fixtures/workspace.json');
const TEST_KEY = 'sk_test_fixture_key_000000000000000001';

/**
 * The server scenarios that apply to this server, and why the others do not. Most of the
 * suite's tool, prompt and resource scenarios call fixtures of its reference server by name
 * (test_simple_text, test://static-text, …); this server has its own 19 tools and only the
 * MCP App views as resources, and no prompts, logging, completion or subscriptions.
 */
export const APPLICABLE = ['server-initialize', 'ping', 'tools-list', 'resources-list', 'dns-rebinding-protection'];

const free = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

async function main() {
  const all = process.argv.includes('--all');
  const dir = mkdtempSync(join(tmpdir(), 'outreach-conformance-'));
  const db = join(dir, 'o.db');
  execFileSync(process.execPath, [BIN, 'seed', '--file', FIXTURE, '--db', db]);
  const port = await free();
  const server = spawn(process.execPath, [BIN, 'start', '--host', '127.0.0.1', '--port', String(port), '--db', db], {
    stdio: ['ignore', 'pipe', process.env.VERBOSE ? 'inherit' : 'ignore'],
    env: { ...process.env, OUTREACH_ENV: '' },
  });
  await new Promise((resolve, reject) => {
    server.stdout.on('data', (chunk) => String(chunk).includes(`:${port}`) && resolve());
    server.stdout.resume();
    server.on('exit', (code) => reject(new Error(`the server exited with ${code}`)));
  });

  // The authenticating proxy: every request gains the key, nothing else changes.
  const proxy = createServer((req, res) => {
    const upstream = request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: { ...req.headers, 'x-api-key': TEST_KEY } }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  const proxyPort = await new Promise((resolve) => proxy.listen(0, '127.0.0.1', () => resolve(proxy.address().port)));
  const url = `http://localhost:${proxyPort}/mcp`;

  const named = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const scenarios = named.length
    ? named
    : all
      ? execFileSync('npx', ['-y', '-p', 'node@22', '-p', SUITE, '-c', 'conformance list'], { encoding: 'utf8' })
          .split('Client scenarios')[0]
          .split('\n')
          .map((l) => /^\s*- ([\w-]+)/.exec(l)?.[1])
          .filter(Boolean)
      : APPLICABLE;

  const results = [];
  try {
    for (const scenario of scenarios) {
      const out = join(dir, scenario);
      const run = spawn('npx', ['-y', '-p', 'node@22', '-p', SUITE, '-c', `conformance server --url ${url} --scenario ${scenario} -o ${out}`], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let text = '';
      run.stdout.on('data', (c) => (text += c));
      run.stderr.on('data', (c) => (text += c));
      const code = await new Promise((resolve) => run.on('exit', resolve));
      const checks = readChecks(out);
      const failed = checks.filter((c) => c.status === 'FAILURE');
      const passed = code === 0 && checks.length > 0 && failed.length === 0;
      results.push({ scenario, passed, checks: checks.length, failed: failed.map((c) => `${c.id}: ${c.errorMessage ?? ''}`) });
      console.log(
        `${passed ? 'PASS' : 'FAIL'}  ${scenario}  (${checks.length} checks${failed.length ? `; failed: ${failed.map((c) => c.id).join(', ')}` : ''})`,
      );
      if (process.env.VERBOSE) console.log(text, JSON.stringify(checks, null, 1));
    }
  } finally {
    proxy.close();
    server.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
  if (process.env.CONFORMANCE_JSON) writeFileSync(process.env.CONFORMANCE_JSON, JSON.stringify(results, null, 2));
  const failures = results.filter((r) => !r.passed);
  console.log(`${results.length - failures.length} of ${results.length} scenarios passed`);
  process.exitCode = failures.length && !all ? 1 : 0;
}

/** The checks the suite saved for a scenario (checks.json somewhere under its output dir). */
function readChecks(out) {
  if (!existsSync(out)) return [];
  const found = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name === 'checks.json') found.push(...JSON.parse(readFileSync(join(d, e.name), 'utf8')));
    }
  };
  walk(out);
  return found;
}

await main();
