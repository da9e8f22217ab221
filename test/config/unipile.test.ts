import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { productionGaps, resolveSettings, UsageError } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { baseUrlFromDsn } from '../../src/network/unipile/config.js';

const DSN = 'api8.unipile.com:13851';
const KEY = 'uni_key_LEAKME_abcdef123456';
const INBOUND = 'inbound_LEAKME_0123456789abcdefgh';

function configFile(content: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'outreach-config-'));
  const path = join(dir, 'config.json');
  writeFileSync(path, JSON.stringify(content));
  return path;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the unipile config', () => {
  it('comes from the config file, each key overridable by its variable', () => {
    const config = configFile({ env: 'production', unipile: { dsn: DSN, apiKey: 'from-file', inboundSecret: INBOUND } });
    const s = resolveSettings({ config }, { UNIPILE_API_KEY: KEY });
    expect(s.unipile).toEqual({ dsn: DSN, apiKey: KEY, inboundSecret: INBOUND });
    expect(productionGaps(s)).toEqual([]);
  });

  it('comes from the environment alone', () => {
    const s = resolveSettings({ env: 'production' }, { UNIPILE_DSN: DSN, UNIPILE_API_KEY: KEY, UNIPILE_INBOUND_SECRET: INBOUND });
    expect(productionGaps(s)).toEqual([]);
  });

  it('is strict: an unknown key is named by its path', () => {
    const config = configFile({ unipile: { dsn: DSN, apikey: KEY } });
    expect(() => resolveSettings({ config }, {})).toThrow(/unipile.*apikey/);
  });

  it('refuses a bad value, naming the variable but never echoing it', () => {
    for (const [name, value] of [
      ['UNIPILE_DSN', 'not a host/LEAKME'],
      ['UNIPILE_INBOUND_SECRET', 'short-LEAKME'],
      ['UNIPILE_API_KEY', 'has LEAKME space'],
    ] as const) {
      let error: unknown;
      try {
        resolveSettings({}, { [name]: value });
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toContain(name);
      expect((error as Error).message).not.toContain('LEAKME');
    }
  });

  it('reads a DSN as host[:port], or an explicit http(s) origin', () => {
    expect(baseUrlFromDsn(DSN)).toBe('https://api8.unipile.com:13851/api/v1');
    expect(baseUrlFromDsn('https://api8.unipile.com:13851/api/v1/')).toBe('https://api8.unipile.com:13851/api/v1');
    expect(baseUrlFromDsn('http://127.0.0.1:4000')).toBe('http://127.0.0.1:4000/api/v1');
    for (const bad of ['', 'ftp://x', 'host/some/path', 'https://u:p@host', 'a b']) expect(baseUrlFromDsn(bad)).toBeNull();
  });
});

describe('production start-up', () => {
  it('names every missing Unipile setting; development needs none', () => {
    expect(productionGaps(resolveSettings({}, {}))).toEqual([]);
    expect(productionGaps(resolveSettings({ env: 'production' }, { UNIPILE_DSN: DSN }))).toEqual([
      'the Unipile API key (UNIPILE_API_KEY or unipile.apiKey in --config)',
      'the Unipile webhook secret (UNIPILE_INBOUND_SECRET or unipile.inboundSecret in --config)',
    ]);
  });

  it('refuses with one line on stderr and exit code 2', async () => {
    const lines: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    const keep = { ...process.env };
    for (const name of ['UNIPILE_DSN', 'UNIPILE_API_KEY', 'UNIPILE_INBOUND_SECRET', 'OUTREACH_CONFIG']) delete process.env[name];
    try {
      expect(await main(['start', '--env', 'production', '--port', '0', '--db', ':memory:'])).toBe(2);
    } finally {
      process.env = keep;
    }
    expect(lines).toHaveLength(1);
    expect(lines[0]!.trimEnd().split('\n')).toHaveLength(1);
    expect(lines[0]).toMatch(/^outreach: --env production: cannot start without the Unipile DSN \(UNIPILE_DSN.*UNIPILE_API_KEY.*UNIPILE_INBOUND_SECRET/);
  });
});

describe('logs', () => {
  it('never carry the Unipile API key or inbound secret', () => {
    let out = '';
    const sink = new Writable({
      write(chunk, _enc, done) {
        out += String(chunk);
        done();
      },
    });
    const log = createLogger('info', sink);
    const settings = resolveSettings({ env: 'production' }, { UNIPILE_DSN: DSN, UNIPILE_API_KEY: KEY, UNIPILE_INBOUND_SECRET: INBOUND });
    log.info({ settings }, 'settings');
    log.info({ unipile: settings.unipile }, 'section');
    log.info({ config: { unipile: settings.unipile } }, 'config');
    log.info({ req: { headers: { 'x-outreach-webhook-secret': INBOUND } } }, 'webhook');
    expect(out).toContain(DSN);
    expect(out).not.toContain('LEAKME');
    expect(out.match(/\[redacted\]/g)?.length).toBe(7);
  });
});
