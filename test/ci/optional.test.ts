import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { inCi } from '../optional.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('tests that need an optional tool', () => {
  it('CI is on for the values CI services set, off when unset, empty, false or 0', () => {
    for (const v of ['true', '1', 'TRUE', 'yes']) expect(inCi({ CI: v }), v).toBe(true);
    for (const v of [undefined, '', 'false', '0', ' False ']) expect(inCi({ CI: v }), String(v)).toBe(false);
  });

  // A scratch suite that needs a tool that is never there, run by vitest itself with and without CI.
  const scratch = mkdtempSync(join(root, 'test', '.optional-probe-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  writeFileSync(join(scratch, 'vitest.config.mjs'), "export default { test: { include: ['*.probe.ts'] } };\n");
  writeFileSync(
    join(scratch, 'tool.probe.ts'),
    `import { describe, it } from 'vitest';
import { requireTool } from ${JSON.stringify(join(root, 'test', 'optional.ts'))};
describe.skipIf(!requireTool('the-missing-tool', false))('needs the tool', () => { it('uses it', () => {}); });
`,
  );
  const probe = (ci: string) => {
    const report = join(scratch, `report-${ci || 'none'}.json`);
    const r = spawnSync(
      process.execPath,
      [
        join(root, 'node_modules', 'vitest', 'vitest.mjs'),
        'run',
        '--root',
        scratch,
        '--config',
        join(scratch, 'vitest.config.mjs'),
        '--reporter',
        'json',
        '--outputFile',
        report,
      ],
      {
        cwd: scratch,
        env: { ...process.env, CI: ci },
        encoding: 'utf8',
      },
    );
    return {
      status: r.status,
      report: JSON.parse(readFileSync(report, 'utf8')) as {
        numFailedTests: number;
        numPendingTests: number;
        testResults: Array<{ assertionResults: Array<{ title: string; failureMessages: string[] }> }>;
      },
    };
  };

  it('skips on a developer machine', () => {
    const r = probe('');
    expect(r.status).toBe(0);
    expect(r.report.numFailedTests).toBe(0);
    expect(r.report.numPendingTests).toBe(1);
  }, 60_000);

  it('fails, naming the tool, when CI is set', () => {
    const r = probe('true');
    expect(r.status).not.toBe(0);
    expect(r.report.numFailedTests).toBe(1);
    expect(JSON.stringify(r.report.testResults)).toContain('the-missing-tool is missing');
  }, 60_000);
});
