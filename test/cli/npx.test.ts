import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_SCRIPT, npxCommand, selfNamed } from '../../src/config.js';

/**
 * Run by `npx -y outreach-mcp`, the CLI lives in npx's cache (<npm cache>/_npx/<hash>/…), a path
 * that changes with each version: commands it prints name npx and the installed version instead.
 * scripts/npx-install.mjs (CI) sees the same through a real npx install.
 */
describe('printed commands under npx', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'outreach-npx-path-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const installed = (under: string, version: string) => {
    const pkgDir = join(scratch, under, 'node_modules', 'outreach-mcp');
    mkdirSync(join(pkgDir, 'bin'), { recursive: true });
    writeFileSync(join(pkgDir, 'package.json'), JSON.stringify({ name: 'outreach-mcp', version }));
    writeFileSync(join(pkgDir, 'bin', 'outreach.js'), '');
    return join(pkgDir, 'bin', 'outreach.js');
  };

  it("name npx and the installed package's version when the script is in npx's cache", () => {
    expect(npxCommand(installed(join('.npm', '_npx', '4f1c2a9b'), '9.8.7'))).toBe('npx -y outreach-mcp@9.8.7');
  });

  it('stay as they were for a checkout or a global install', () => {
    expect(npxCommand(CLI_SCRIPT)).toBeNull();
    expect(npxCommand(installed(join('prefix', 'lib'), '9.8.7'))).toBeNull();
    // Only a folder named exactly _npx counts.
    expect(npxCommand(installed('my_npx', '9.8.7'))).toBeNull();
  });

  it("rename every `npx outreach` of the CLI's messages to npx's command, and leave them as they are in a checkout", () => {
    const via = npxCommand(installed(join('.npm', '_npx', '77aa'), '1.2.3'));
    const text = 'No members yet. Add the owner with: npx outreach members add --name NAME; then `npx outreach login --member usr_1`.';
    expect(selfNamed(text, via)).toBe(
      'No members yet. Add the owner with: npx -y outreach-mcp@1.2.3 members add --name NAME; then `npx -y outreach-mcp@1.2.3 login --member usr_1`.',
    );
    expect(selfNamed(text, null)).toBe(text);
    // The package's own name is not this CLI's command.
    expect(selfNamed('npx outreach-mcp keys create', via)).toBe('npx outreach-mcp keys create');
  });
});
