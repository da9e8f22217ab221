import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveSettings, UsageError } from '../../src/config.js';

describe('trustProxy: whether X-Forwarded-For from loopback names the client', () => {
  it('is off by default, on with a public address (the proxy setup), and set either way by OUTREACH_TRUST_PROXY or the config', () => {
    expect(resolveSettings({}, {}).trustProxy).toBe(false);
    expect(resolveSettings({}, { OUTREACH_PUBLIC_URL: 'https://outreach.example.com' }).trustProxy).toBe(true);
    expect(resolveSettings({}, { OUTREACH_PUBLIC_URL: 'https://outreach.example.com', OUTREACH_TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(resolveSettings({}, { OUTREACH_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    const file = join(mkdtempSync(join(tmpdir(), 'outreach-trust-')), 'config.json');
    writeFileSync(file, JSON.stringify({ trustProxy: true }));
    expect(resolveSettings({ config: file }, {}).trustProxy).toBe(true);
    expect(() => resolveSettings({}, { OUTREACH_TRUST_PROXY: 'maybe' })).toThrow(UsageError);
    expect(() => resolveSettings({}, { OUTREACH_TRUST_PROXY: 'maybe' })).toThrow(/OUTREACH_TRUST_PROXY: "maybe" must be 1 or 0/);
  });
});
