import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dashboardLoginHint, resolveSettings, UsageError } from '../../src/config.js';

describe('the public address (OUTREACH_PUBLIC_URL, config publicUrl)', () => {
  it('is read from the variable or the config file, the variable winning, without a trailing slash', () => {
    expect(resolveSettings({}, { OUTREACH_PUBLIC_URL: 'https://outreach.example.com/' }).publicUrl).toBe('https://outreach.example.com');
    const file = join(mkdtempSync(join(tmpdir(), 'outreach-public-')), 'c.json');
    writeFileSync(file, JSON.stringify({ publicUrl: 'https://from-config.example.com' }));
    expect(resolveSettings({ config: file }, {}).publicUrl).toBe('https://from-config.example.com');
    expect(resolveSettings({ config: file }, { OUTREACH_PUBLIC_URL: 'https://from-env.example.com' }).publicUrl).toBe('https://from-env.example.com');
    expect(resolveSettings({}, {}).publicUrl).toBeUndefined();
  });

  it('refuses what is not a plain http(s) address, naming the variable or key', () => {
    for (const bad of ['outreach.example.com', 'ftp://x.example.com', 'https://user:pw@x.example.com', 'https://x.example.com/?a=1']) {
      expect(() => resolveSettings({}, { OUTREACH_PUBLIC_URL: bad }), bad).toThrow(UsageError);
      expect(() => resolveSettings({}, { OUTREACH_PUBLIC_URL: bad }), bad).toThrow(/OUTREACH_PUBLIC_URL/);
    }
    const file = join(mkdtempSync(join(tmpdir(), 'outreach-public-')), 'c.json');
    writeFileSync(file, JSON.stringify({ publicUrl: 'not a url' }));
    expect(() => resolveSettings({ config: file }, {})).toThrow(/publicUrl/);
  });

  it('goes into the signed-out hint as --base; a database other than the default as --db without its path', () => {
    expect(dashboardLoginHint({ dbPath: resolveSettings({}, {}).dbPath })).toBe('npx outreach login');
    expect(dashboardLoginHint({ dbPath: '/srv/secret/place.db', publicUrl: 'https://outreach.example.com' })).toBe(
      "npx outreach login --db <the server's database file> --base https://outreach.example.com",
    );
  });
});
