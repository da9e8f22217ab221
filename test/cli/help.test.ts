import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { usageEntries } from '../../src/cli/help.js';
import { main } from '../../src/cli/main.js';

const BIN = new URL('../../bin/outreach.js', import.meta.url).pathname;

function spawnCli(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, OUTREACH_DB: '', OUTREACH_ENV: '' }, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The CLI in this process, with its output captured (help never starts anything). */
async function cli(args: string[]) {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => ((stdout += String(c)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((c: string | Uint8Array) => ((stderr += String(c)), true));
  try {
    const status = await main(args);
    return { status, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

describe('--help after a command or subcommand', () => {
  // Run in an empty folder: help must not create ./data/outreach.db or anything else.
  let cwd: string;
  const home = process.cwd();
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'outreach-help-'));
    process.chdir(cwd);
  });
  afterEach(() => {
    process.chdir(home);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('prints the usage of every command and subcommand the top-level usage lists, and exits 0', async () => {
    const top = await cli(['--help']);
    expect(top.status).toBe(0);
    const entries = usageEntries(top.stdout);
    for (const command of ['start', 'mcp', 'seed', 'keys', 'webhooks'])
      expect(
        entries.some((e) => e.words[0] === command),
        command,
      ).toBe(true);
    for (const command of new Set(entries.map((e) => e.words[0]!))) {
      const own = entries.filter((e) => e.words[0] === command);
      for (const flag of ['--help', '-h']) {
        const r = await cli([command, flag]);
        expect(r.status, `${command} ${flag}: ${r.stderr}`).toBe(0);
        expect(r.stderr).toBe('');
        for (const e of own) expect(r.stdout).toContain(e.text);
        // Only this command's entries: another command's usage is not printed.
        for (const other of entries.filter((e) => e.words[0] !== command)) expect(r.stdout).not.toContain(other.text);
      }
      for (const e of own.filter((x) => x.words.length > 1)) {
        const r = await cli([...e.words, '--help']);
        expect(r.status, `${e.words.join(' ')} --help: ${r.stderr}`).toBe(0);
        expect(r.stdout).toContain(e.text);
        for (const other of own.filter((x) => x !== e)) expect(r.stdout).not.toContain(other.text);
      }
    }
  });

  it('--help wins over other flags, even invalid ones, and `help <command>` is the same', async () => {
    const r = await cli(['start', '--port', '99999', '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('--sim-speed');
    expect((await cli(['keys', 'create', '--env', 'prod', '--help'])).status).toBe(0);
    expect((await cli(['help', 'keys'])).stdout).toBe((await cli(['keys', '--help'])).stdout);
  });

  it("a flag's value before or after --help is not taken for a subcommand, and opens no database", async () => {
    const db = join(cwd, 'help-flag-value.db');
    const all = (await cli(['campaigns', '--help'])).stdout;
    for (const args of [
      ['campaigns', '--db', db, '--help'],
      ['campaigns', '--help', '--db', db],
      ['agents', '--json', '--db', db, '-h'],
    ]) {
      const r = await cli(args);
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toContain(`Usage: npx outreach ${args[0]} [options]`);
    }
    expect((await cli(['campaigns', '--help', '--db', db])).stdout).toBe(all);
    expect(existsSync(db)).toBe(false);
  });

  it('an unknown subcommand with --help is still an error naming it', async () => {
    const r = await cli(['keys', 'nope', '--help']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('"nope"');
  });

  it('--help after `--` is an argument, not a request for help', async () => {
    const r = await cli(['seed', '--', '--help']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--help');
  });

  it('works through the installed command: `outreach start --help` exits 0', () => {
    const r = spawnCli(['start', '--help'], cwd);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Usage: npx outreach start');
  });
});
