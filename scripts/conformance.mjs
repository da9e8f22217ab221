#!/usr/bin/env node
// Runs the official MCP conformance suite (@modelcontextprotocol/conformance) against this
// server's streamable HTTP endpoint, once for each protocol era: 2025-11-25 (the initialize
// handshake) and 2026-07-28 (stateless, `_meta` on every request). The suite's client sends no
// credentials, so it talks to a small proxy that adds the fixture's test key to every request,
// as an MCP host configured with the key would. The suite needs Node 22: the script installs
// it (the registry's `node` package) and the suite, at the versions pinned below, into a cache
// directory once, with the ordinary npm client.
//
//   npm run build && node scripts/conformance.mjs        # every server scenario, both eras
//   node scripts/conformance.mjs --applicable            # only the scenarios that apply (faster)
//   node scripts/conformance.mjs tools-list              # named scenarios, both eras
//   node scripts/conformance.mjs --from results.json     # the summary of a saved run (CONFORMANCE_JSON)
//
// It prints two scores per era: the suite's own, over the server scenarios its requirement set
// for the revision scores (requirements/<revision>.yaml in the suite's package), one passing
// when it has a passing check and no failing one, as the suite's tier check counts; and ours,
// over the scenarios that apply to this server (NOT_TESTABLE checks excused). Exit
// status 0 when every applicable scenario passes in both eras. docs/mcp.md (Conformance) has
// every scenario with its outcome, and why.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SUITE_VERSION = '0.2.0-alpha.12';
const NODE_VERSION = '22';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/outreach.js');
const FIXTURE = join(ROOT, 'test/fixtures/workspace.json');
const TEST_KEY = 'sk_test_fixture_key_000000000000000001';

/**
 * The scenarios that apply to this server, per era. The others call fixtures of the suite's
 * reference server by name (tools such as test_simple_text or slow_compute, resources such as
 * test://static-text, prompts such as test_simple_prompt) or test features this server does not
 * offer (logging, sampling, sessions); docs/mcp.md says which.
 */
export const APPLICABLE = {
  '2025-11-25': [
    'server-initialize',
    'ping',
    'tools-list',
    'resources-list',
    'resources-subscribe',
    'resources-unsubscribe',
    'prompts-list',
    'dns-rebinding-protection',
  ],
  '2026-07-28': [
    'server-stateless',
    'tools-list',
    'resources-list',
    'sep-2164-resource-not-found',
    'prompts-list',
    'caching',
    'dns-rebinding-protection',
    'server-sse-multiple-streams',
    'http-header-validation',
    'input-required-result-unsupported-methods',
  ],
};

/**
 * Checks of an applicable scenario that the suite cannot run here: each needs one of the
 * reference server's diagnostic tools, and the suite reports it "not testable". Everything
 * else in the scenario must pass.
 */
export const NOT_TESTABLE = {
  'server-stateless': [
    'sep-2575-server-rejects-undeclared-capability',
    'sep-2575-missing-capability-http-400',
    'sep-2575-http-server-no-independent-requests-on-stream',
    'sep-2575-server-no-log-without-loglevel',
  ],
};

const free = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** Node 22 and the suite, installed once per version into a cache directory. */
function suite() {
  const dir = process.env.CONFORMANCE_HOME ?? join(tmpdir(), `outreach-conformance-${SUITE_VERSION}`);
  const bin = join(dir, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
  const node = join(dir, 'node_modules/.bin/node');
  if (!existsSync(bin) || !existsSync(node)) {
    mkdirSync(dir, { recursive: true });
    // The `node` package fetches its platform binary from the registry in an install script.
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'outreach-conformance', private: true, allowScripts: { node: true } }));
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', `node@${NODE_VERSION}`, `@modelcontextprotocol/conformance@${SUITE_VERSION}`], {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  return { node, bin };
}

async function startServer(dir) {
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
  return {
    url: `http://localhost:${proxyPort}/mcp`,
    stop: () => {
      proxy.close();
      server.kill('SIGTERM');
    },
  };
}

/** Every server scenario of one era, from the suite's own list. */
function scenariosOf(s, version) {
  const listed = execFileSync(s.node, [s.bin, 'list', '--server'], { encoding: 'utf8' });
  return listed
    .split('\n')
    .map((l) => /^\s*- ([\w-]+) \[([^\]]+)\]/.exec(l))
    .filter((m) => m?.[2].split(',').includes(version))
    .map((m) => m[1]);
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

async function runScenario(s, url, version, scenario, dir) {
  const out = join(dir, `${version}-${scenario}`);
  const run = spawn(s.node, [s.bin, 'server', '--url', url, '--scenario', scenario, '--spec-version', version, '--force', '-o', out], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  run.stdout.on('data', (c) => (text += c));
  run.stderr.on('data', (c) => (text += c));
  await new Promise((resolve) => run.on('exit', resolve));
  const checks = readChecks(out);
  const excused = new Set(NOT_TESTABLE[scenario] ?? []);
  const failed = checks.filter((c) => c.status === 'FAILURE' && !excused.has(c.id));
  // The suite's own verdict: some check passed, none failed (nothing excused).
  const suitePassed = checks.some((c) => c.status === 'SUCCESS') && !checks.some((c) => c.status === 'FAILURE');
  if (process.env.VERBOSE) console.log(text, JSON.stringify(checks, null, 1));
  return {
    version,
    scenario,
    passed: checks.length > 0 && failed.length === 0,
    suitePassed,
    checks: checks.length,
    failed: failed.map((c) => `${c.id}: ${c.errorMessage ?? ''}`),
  };
}

/**
 * The server scenarios the suite scores for a revision: the `server:` list of its requirement
 * set (a plain YAML list, read without a YAML library); null when the suite ships none.
 */
function scoredScenarios(s, version) {
  const file = join(s.bin, '../../requirements', `${version}.yaml`);
  if (!existsSync(file)) return null;
  const names = [];
  let inServer = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^\S/.test(line)) inServer = line.startsWith('server:');
    else if (inServer) {
      const m = /^\s+-\s+([\w-]+)\s*$/.exec(line);
      if (m) names.push(m[1]);
    }
  }
  return names;
}

/** Both scores of each era, and the exit status: 0 when every applicable run passed. */
function summarize(s, results) {
  const judged = results.filter((r) => r.applicable);
  const failures = judged.filter((r) => !r.passed);
  for (const version of Object.keys(APPLICABLE)) {
    const ran = results.filter((r) => r.version === version);
    const ours = ran.filter((r) => r.applicable);
    const scored = scoredScenarios(s, version);
    let suite = "the suite's score: no requirement set";
    if (scored) {
      const passed = scored.filter((name) => ran.some((r) => r.scenario === name && r.suitePassed)).length;
      const unrun = scored.filter((name) => !ran.some((r) => r.scenario === name)).length;
      suite = `the suite's score ${passed} of ${scored.length}${unrun ? ` (${unrun} not run)` : ''}`;
    }
    console.log(`${version}: ${suite}; ours ${ours.filter((r) => r.passed).length} of ${ours.length} applicable`);
  }
  console.log(
    `${judged.length - failures.length} of ${judged.length} applicable scenario runs passed (suite ${SUITE_VERSION}, eras ${Object.keys(APPLICABLE).join(' and ')})`,
  );
  return failures.length ? 1 : 0;
}

async function main() {
  const from = process.argv.indexOf('--from');
  if (from !== -1) {
    process.exitCode = summarize(suite(), JSON.parse(readFileSync(process.argv[from + 1], 'utf8')));
    return;
  }
  const all = !process.argv.includes('--applicable');
  const named = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const s = suite();
  const dir = mkdtempSync(join(tmpdir(), 'outreach-conformance-'));
  const server = await startServer(dir);
  const results = [];
  try {
    for (const version of Object.keys(APPLICABLE)) {
      const scenarios = named.length ? named : all ? scenariosOf(s, version) : APPLICABLE[version];
      for (const scenario of scenarios) {
        const r = await runScenario(s, server.url, version, scenario, dir);
        r.applicable = APPLICABLE[version].includes(scenario);
        results.push(r);
        const mark = r.applicable ? (r.passed ? 'PASS' : 'FAIL') : r.suitePassed ? 'pass' : 'n/a ';
        console.log(`${mark}  ${version}  ${scenario}  (${r.checks} checks${r.failed.length ? `; failed: ${r.failed.join(' | ').slice(0, 300)}` : ''})`);
      }
    }
  } finally {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  if (process.env.CONFORMANCE_JSON) writeFileSync(process.env.CONFORMANCE_JSON, JSON.stringify(results, null, 2));
  process.exitCode = summarize(s, results);
}

await main();
