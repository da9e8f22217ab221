import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `npm pack` makes a package that `npm install -g` installs and whose `outreach` works from any
 * folder. The package is packed from the current build (`npm test` builds first) and installed
 * into a scratch prefix. Its install scripts are skipped: the one that matters, better-sqlite3's
 * native build, is that package's own business and takes minutes, so the build this checkout
 * already has is copied in (or rebuilt when npm picked another version).
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const npm = (args: string[], cwd: string) =>
  execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false' } });

describe('npm pack, then npm install -g', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'outreach-pack-'));
  const prefix = join(scratch, 'prefix');
  const elsewhere = join(scratch, 'elsewhere');
  let tarball: string;
  let files: string[];
  let outreach: string;
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  beforeAll(() => {
    mkdirSync(elsewhere);
    const packed = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], root)) as Array<{
      filename: string;
      files: Array<{ path: string }>;
    }>;
    tarball = join(scratch, packed[0]!.filename);
    files = packed[0]!.files.map((f) => f.path);
    npm(['install', '--global', '--prefix', prefix, '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', tarball], scratch);
    const installed = join(prefix, 'lib', 'node_modules', 'outreach-mcp', 'node_modules', 'better-sqlite3');
    const version = (dir: string) => (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
    const ours = join(root, 'node_modules', 'better-sqlite3');
    if (version(installed) === version(ours)) cpSync(join(ours, 'build'), join(installed, 'build'), { recursive: true });
    else npm(['rebuild', 'better-sqlite3'], join(prefix, 'lib', 'node_modules', 'outreach-mcp'));
    outreach = join(prefix, 'bin', 'outreach');
  }, 600_000);

  const run = (args: string[]) => {
    const r = spawnSync(outreach, args, { cwd: elsewhere, encoding: 'utf8', env: { ...process.env, OUTREACH_DB: '', OUTREACH_ENV: '' } });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  it('holds what the installed command needs, and not the tests or the TypeScript sources', () => {
    for (const needed of [
      'package.json',
      'bin/outreach.js',
      'dist/bundle/outreach.mjs',
      'dist/cli/index.js',
      'dist/server.js',
      'src/db/migrations/0000_init.sql',
      'README.md',
    ]) {
      expect(files, needed).toContain(needed);
    }
    expect(files.filter((f) => f.startsWith('test/') || f.startsWith('bench/') || f.startsWith('dist/bench-build/') || /^src\/.*\.ts$/.test(f))).toEqual([]);
    // No pictures (the README's screenshots stay in the repository), logs or local secrets.
    expect(files.filter((f) => f.startsWith('docs/screenshots/') || /\.(png|jpe?g|log)$/.test(f) || /(^|\/)\.env/.test(f))).toEqual([]);
    expect(files).toContain('docs/operations.md');
  });

  it('`outreach --help` and a command work from another folder', () => {
    const help = run(['--help']);
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain('Usage:');
    expect(run(['keys', '--help']).status).toBe(0);
    const created = run(['keys', 'create', '--env', 'test', '--db', 'mine.db']);
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/sk_test_[0-9A-Za-z]{32}/);
    expect(readdirSync(elsewhere)).toContain('mine.db');
    // The package's own name is a command too (what npx runs): the same CLI.
    const alias = spawnSync(join(prefix, 'bin', 'outreach-mcp'), ['--version'], { cwd: elsewhere, encoding: 'utf8' });
    expect(alias.status, alias.stderr).toBe(0);
    expect(alias.stdout.trim()).toBe((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version);
  });

  it('`outreach start` serves from the installed package', async () => {
    const child = spawn(outreach, ['start', '--port', '0', '--db', 'served.db'], {
      cwd: elsewhere,
      env: { ...process.env, OUTREACH_DB: '', OUTREACH_ENV: '' },
    });
    try {
      let out = '';
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (c) => {
          out += c;
          if (/Try it:\n.*\/public\/v1\/credits/.test(out)) resolve();
        });
        child.on('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      const key = /sk_test_[0-9A-Za-z]{32}/.exec(out)![0];
      const base = /REST base: (\S+)/.exec(out)![1]!;
      expect((await fetch(`${base}/credits`, { headers: { 'X-API-Key': key } })).status).toBe(200);
      // The stdio config it prints points at the installed copy, not at a checkout.
      expect(out).toContain(join(prefix, 'lib', 'node_modules', 'outreach-mcp', 'bin', 'outreach.js'));
    } finally {
      child.kill('SIGTERM');
    }
  });
});
