import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_SCRIPT, npxCommand } from '../../src/config.js';
import { SERVER_VERSION } from '../../src/version.js';

/**
 * Run by `npx -y outreach-mcp`, the CLI lives in npx's cache (<npm cache>/_npx/<hash>/…), a path
 * that changes with each version: commands it prints name npx and this version instead.
 * scripts/npx-install.mjs (CI) sees the same through a real npx install.
 */
describe('printed commands under npx', () => {
  it('name npx and this version when the script is in npx cache', () => {
    const cached = join('/home/someone/.npm/_npx/4f1c2a9b/node_modules/outreach-mcp/bin/outreach.js');
    expect(npxCommand(cached)).toBe(`npx -y outreach-mcp@${SERVER_VERSION}`);
  });

  it('stay as they were for a checkout or a global install', () => {
    expect(npxCommand(CLI_SCRIPT)).toBeNull();
    expect(npxCommand('/usr/local/lib/node_modules/outreach-mcp/bin/outreach.js')).toBeNull();
    // Only a folder named exactly _npx counts.
    expect(npxCommand('/home/someone/my_npx/node_modules/outreach-mcp/bin/outreach.js')).toBeNull();
  });
});
