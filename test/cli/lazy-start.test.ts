import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const BIN = new URL('../../bin/outreach.js', import.meta.url).pathname;

/**
 * Records every module the child loads through the ESM loader (bare packages and CommonJS ones
 * imported from ESM included), one URL a line, in the file OUTREACH_TEST_LOADED names.
 */
const RECORDER = `data:text/javascript,${encodeURIComponent(`
import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(\`
import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.OUTREACH_TEST_LOADED, url + '\\\\n');
  return next(url, context);
}\`));
`)}`;

/**
 * Node 22 prints a deprecation warning on stderr when a module loads Node's `punycode` (node-fetch
 * 2, under HubSpot's client, does); Node 20 prints it, and the other pending ones, only with
 * `--pending-deprecation`, which every child here runs with, so Node 20 catches it too.
 */
const PENDING = '--pending-deprecation';

/**
 * Starts the server, waits for the banner, runs `check` against it, and returns what it loaded
 * and what it printed on stderr.
 */
async function startAndLoad(check: (base: string, key: string) => Promise<void>, config?: object): Promise<{ loaded: string[]; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'outreach-lazy-'));
  const loaded = join(dir, 'loaded.txt');
  writeFileSync(loaded, '');
  const args = [PENDING, '--import', RECORDER, BIN, 'start', '--port', '0', '--db', join(dir, 'o.db')];
  if (config) {
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
    args.push('--config', join(dir, 'config.json'));
  }
  const child = spawn(process.execPath, args, { env: { ...process.env, OUTREACH_ENV: '', OUTREACH_TEST_LOADED: loaded } });
  let stderr = '';
  child.stderr.on('data', (c) => {
    stderr += c;
  });
  try {
    let out = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (c) => {
        out += c;
        if (out.includes('Try it:')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`exited ${code}`)));
    });
    const key = /sk_test_[0-9A-Za-z]{32}/.exec(out)![0];
    const base = /REST base: (\S+)\/public\/v1/.exec(out)![1]!;
    await check(base, key);
    return { loaded: readFileSync(loaded, 'utf8').split('\n').filter(Boolean), stderr };
  } finally {
    child.kill();
  }
}

const fromPackage = (urls: readonly string[], name: string): string[] => urls.filter((u) => u.includes(`/node_modules/${name}/`));

/** The packages bundled into the loaded chunks of dist/bundle/, as each chunk's source map names them. */
function bundledPackages(urls: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const url of urls.filter((u) => u.startsWith('file:') && u.includes('/dist/bundle/') && u.endsWith('.mjs'))) {
    const file = `${new URL(url).pathname}.map`;
    // The bundler's own runtime chunk has no map, and no package in it.
    if (!existsSync(file)) continue;
    const map = JSON.parse(readFileSync(file, 'utf8')) as { sources: string[] };
    for (const source of map.sources) {
      const tail = source.split('node_modules/').at(-1) as string;
      if (tail === source) continue;
      const parts = tail.split('/');
      out.add(tail.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] as string));
    }
  }
  return out;
}

describe('start loads what serving needs, and the rest on first use', () => {
  it('a server without a drafter, webhook endpoints or a CRM never loads the AI SDK, undici, HubSpot’s client, the stdio transport or the progress bar, and answers all three faces', async () => {
    const { loaded, stderr } = await startAndLoad(async (base, key) => {
      expect((await fetch(`${base}/health`)).status).toBe(200);
      expect((await fetch(`${base}/public/v1/credits`, { headers: { 'X-API-Key': key } })).status).toBe(200);
      const mcp = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(mcp.status).toBe(200);
      expect(JSON.stringify(await mcp.json())).toContain('get_credits');
      expect((await fetch(`${base}/app/`)).status).toBe(200);
    });
    // The recorder works: a package serving needs (and the bundle leaves to Node) is in the list.
    expect(fromPackage(loaded, 'express').length).toBeGreaterThan(0);
    // HubSpot's client pulls in node-fetch 2, whose `require('punycode')` makes Node 22 print a
    // deprecation warning on stderr: it loads on the first HubSpot call only.
    for (const name of ['ai', '@ai-sdk/openai-compatible', 'undici', 'cli-progress', '@hubspot/api-client', 'node-fetch'])
      expect(fromPackage(loaded, name), name).toEqual([]);
    expect(stderr).not.toContain('DeprecationWarning');
    // The server runs from the bundle (scripts/bundle.mjs), not from hundreds of files under dist/.
    expect(loaded.filter((u) => u.includes('/dist/') && !u.includes('/dist/bundle/') && !u.includes('/node_modules/'))).toEqual([]);
    // Neither the SDK's stdio transport nor ours, bundled (a chunk of its own) or not.
    expect(loaded.filter((u) => /stdio/.test(u.slice(u.lastIndexOf('/'))))).toEqual([]);
    // The mail stack (nodemailer, imapflow, mailparser and what they pull in) is bundled into
    // chunks of its own, loaded on a mailbox's first message: none of it by a start.
    const bundled = bundledPackages(loaded);
    expect(bundled.has('zod'), 'the loaded chunks are read').toBe(true);
    for (const name of ['nodemailer', 'imapflow', 'mailparser', 'libmime', 'iconv-lite']) expect(bundled.has(name), name).toBe(false);
  });

  it('a server with a drafter configured still loads none of the AI SDK until a draft is written', async () => {
    const { loaded } = await startAndLoad(
      async (base) => {
        expect((await fetch(`${base}/health`)).status).toBe(200);
      },
      { drafter: { baseUrl: 'http://127.0.0.1:9/v1', model: 'stand-in' } },
    );
    expect(fromPackage(loaded, 'ai')).toEqual([]);
  });

  it('a CLI command prints no deprecation warning, on Node 20 with pending ones shown and on Node 22', () => {
    const dir = mkdtempSync(join(tmpdir(), 'outreach-lazy-'));
    const db = join(dir, 'o.db');
    // keys create makes the database (and its workspace); the reads after it need one there.
    for (const args of [['--help'], ['keys', 'create', '--env', 'test', '--db', db], ['keys', 'list', '--db', db], ['webhooks', 'list', '--db', db]]) {
      const r = spawnSync(process.execPath, [PENDING, BIN, ...args], {
        encoding: 'utf8',
        env: { ...process.env, OUTREACH_ENV: '' },
      });
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stderr, args.join(' ')).not.toContain('DeprecationWarning');
    }
  });
});
