import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The layering rules of docs/architecture.md, enforced with dependency-cruiser
 * (.dependency-cruiser.cjs). There is no baseline of tolerated violations: any violation fails here.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// The package's exports map hides its bin, so the CLI is found where npm installs it.
const cli = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

interface Violation {
  rule: { name: string; severity: string };
  from: string;
  to: string;
  cycle?: Array<{ name: string }>;
}
interface CruiseResult {
  summary: { violations: Violation[]; error: number; totalCruised: number };
}

function cruise(cwd: string, extra: string[]): CruiseResult {
  const res = spawnSync(process.execPath, [cli, 'src', '--config', join(root, '.dependency-cruiser.cjs'), '--output-type', 'json', ...extra], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (!res.stdout) throw new Error(`dependency-cruiser produced no output (exit ${res.status}): ${res.stderr}`);
  return JSON.parse(res.stdout) as CruiseResult;
}

const describeViolation = (v: Violation): string => `${v.rule.name}: ${v.from} -> ${v.cycle?.length ? v.cycle.map((c) => c.name).join(' -> ') : v.to}`;

describe('layering rules (dependency-cruiser)', () => {
  it('src/ has no violation', () => {
    const result = cruise(root, []);
    expect(result.summary.totalCruised).toBeGreaterThan(50);
    expect(result.summary.violations.map(describeViolation)).toEqual([]);
  }, 120_000);

  describe('the rules catch what they forbid', () => {
    // A scratch tree with one import of each forbidden kind, cruised with the same config.
    const scratch = mkdtempSync(join(tmpdir(), 'layering-'));
    afterAll(() => rmSync(scratch, { recursive: true, force: true }));
    const files: Record<string, string> = {
      'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true }, include: ['src'] }),
      'src/rest/a.ts': "import { m } from '../mcp/m.js';\nexport const a = m;\n",
      'src/mcp/m.ts': "import { w } from '../web/w.js';\nexport const m = w;\n",
      'src/web/w.ts': "import { r } from '../rest/r.js';\nexport const w = r;\n",
      'src/rest/r.ts': 'export const r = 1;\n',
      'src/network/n.ts': "import { s } from '../db/s.js';\nexport const n = s;\n",
      'src/db/s.ts': 'export const s = 1;\n',
      'src/core/c.ts':
        "import { e } from '../engine/e.js';\nimport { t } from '../tools/t.js';\nimport { h } from '../http/h.js';\nexport const c = e + t + h;\n",
      'src/engine/e.ts': 'export const e = 1;\n',
      'src/tools/t.ts': "import { s } from '../db/s.js';\nexport const t = s;\n",
      'src/http/h.ts': "import { s } from '../db/s.js';\nexport const h = s;\n",
      'src/workers/outreach/x.ts': "import { y } from './y.js';\nexport const x = y;\n",
      'src/workers/lookalike/l.ts': "import { s } from '../../db/s.js';\nexport const l = s;\n",
      'src/workers/outreach/y.ts': "import { x } from './x.js';\nexport const y = () => x;\n",
      // The bottom layer importing a verb; arrows the diagram does not draw.
      'src/db/up.ts': "import { c } from '../core/c.js';\nexport const up = c;\n",
      'src/tools/h2.ts': "import { h } from '../http/h.js';\nexport const h2 = h;\n",
      'src/docs/d.ts': "import { c } from '../core/c.js';\nexport const d = c;\n",
      // Core may name an adapter's store type, never run adapter code.
      'src/network/store.ts': 'export interface Store { n: number }\nexport const adapterCode = 1;\n',
      'src/core/store-ok.ts': "import type { Store } from '../network/store.js';\nexport const ok = (s: Store) => s.n;\n",
      'src/core/store-bad.ts': "import { adapterCode } from '../network/store.js';\nexport const bad = adapterCode;\n",
      // Arrows the diagram draws.
      'src/core/uses-db.ts': "import { s } from '../db/s.js';\nexport const u = s;\n",
      'src/rest/uses-tools.ts': "import { t } from '../tools/t.js';\nexport const u = t;\n",
      'src/db/campaign-writer.ts': 'export const gate = 1;\n',
      'src/core/campaigns/store.ts': "import { gate } from '../../db/campaign-writer.js';\nexport const sm = gate;\n",
      'src/core/leads/sneaky.ts': "import { gate } from '../../db/campaign-writer.js';\nexport const sneaky = gate;\n",
      'src/db/drafts-writer.ts': 'export const draftsGate = 1;\n',
      'src/core/drafts/store.ts': "import { draftsGate } from '../../db/drafts-writer.js';\nexport const store = draftsGate;\n",
      'src/core/drafts/update.ts': "import { draftsGate } from '../../db/drafts-writer.js';\nexport const sneaky = draftsGate;\n",
      'src/db/sql-gate.ts': 'export const sqlGate = 1;\n',
      'src/db/other-gate.ts': "import { sqlGate } from './sql-gate.js';\nexport const other = sqlGate;\n",
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(scratch, path)), { recursive: true });
      writeFileSync(join(scratch, path), text);
    }

    it('reports every forbidden import, including ones in folders that do not exist yet', () => {
      const found = new Set(cruise(scratch, []).summary.violations.map((v) => `${v.rule.name} ${v.from} ${v.to}`));
      for (const expected of [
        'rest-to-mcp src/rest/a.ts src/mcp/m.ts',
        'rest-or-mcp-to-web src/mcp/m.ts src/web/w.ts',
        'web-to-rest-or-mcp src/web/w.ts src/rest/r.ts',
        'network-to-db src/network/n.ts src/db/s.ts',
        'core-to-worker src/core/c.ts src/engine/e.ts',
        'core-to-face src/core/c.ts src/tools/t.ts',
        'core-to-face src/core/c.ts src/http/h.ts',
        'face-to-db src/tools/t.ts src/db/s.ts',
        'face-to-db src/http/h.ts src/db/s.ts',
        'worker-to-db src/workers/lookalike/l.ts src/db/s.ts',
        'db-imports-nothing-above src/db/up.ts src/core/c.ts',
        'not-in-allowed src/db/up.ts src/core/c.ts',
        'not-in-allowed src/tools/h2.ts src/http/h.ts',
        'not-in-allowed src/docs/d.ts src/core/c.ts',
        'core-to-adapter-code src/core/store-bad.ts src/network/store.ts',
        'not-in-allowed src/core/store-bad.ts src/network/store.ts',
        'campaign-state-writer src/core/leads/sneaky.ts src/db/campaign-writer.ts',
        'drafts-writer src/core/drafts/update.ts src/db/drafts-writer.ts',
        'sql-gate src/db/other-gate.ts src/db/sql-gate.ts',
      ])
        expect(found, expected).toContain(expected);
      const about = (file: string) => [...found].filter((v) => v.includes(` ${file} `));
      expect(about('src/core/store-ok.ts')).toEqual([]);
      expect(about('src/core/uses-db.ts')).toEqual([]);
      expect(about('src/rest/uses-tools.ts')).toEqual([]);
      // The campaigns store itself may open the gate.
      expect(about('src/core/campaigns/store.ts')).toEqual([]);
      // And the drafts store its own.
      expect(about('src/core/drafts/store.ts')).toEqual([]);
      expect([...found].some((v) => v.startsWith('no-cycles src/workers/outreach/'))).toBe(true);
    }, 120_000);
  });
});
