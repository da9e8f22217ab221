import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../scripts/build.mjs', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * A project laid out as ours, whose build scripts only record that they ran and write the
 * outputs the real ones would: the staleness rules run for real, in seconds.
 */
function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'outreach-build-'));
  const put = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  const node = JSON.stringify(process.execPath);
  const record = (part: string, outputs: string[]) =>
    `${node} -e "const fs=require('fs');fs.appendFileSync('ran.log','${part}\\\\n');for(const o of ${JSON.stringify(outputs).replace(/"/g, "'")}){fs.mkdirSync(require('path').dirname(o),{recursive:true});fs.writeFileSync(o,'')}"`;
  put(
    'package.json',
    JSON.stringify({
      name: 'fixture',
      private: true,
      scripts: {
        'build:server': record('server', ['dist/cli/index.js', 'dist/bundle/outreach.mjs']),
        'build:ui': record('ui', ['dist/ui/dashboard/index.html', 'dist/ui/views/insights.html']),
      },
    }),
  );
  put('package-lock.json', '{}');
  put('tsconfig.json', '{}');
  put('tsconfig.build.json', '{}');
  put('src/server.ts', 'export const a = 1;\n');
  put('ui/dashboard/App.tsx', 'export const b = 2;\n');
  return dir;
}

function build(dir: string, ...args: string[]): string[] {
  rmSync(join(dir, 'ran.log'), { force: true });
  const r = spawnSync(process.execPath, [SCRIPT, ...args], { cwd: dir, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return existsSync(join(dir, 'ran.log')) ? readFileSync(join(dir, 'ran.log'), 'utf8').trim().split('\n') : [];
}

describe('scripts/build.mjs: npm start builds only what is not current', () => {
  it('builds everything the first time, then nothing until an input changes', () => {
    const dir = project();
    expect(build(dir, '--if-stale')).toEqual(['server', 'ui']);
    expect(build(dir, '--if-stale')).toEqual([]);
  });

  it('rebuilds only the part whose inputs changed, by content and not by time', () => {
    const dir = project();
    build(dir, '--if-stale');
    appendFileSync(join(dir, 'ui/dashboard/App.tsx'), '// edited\n');
    expect(build(dir, '--if-stale')).toEqual(['ui']);
    writeFileSync(join(dir, 'src/new.ts'), 'export {};\n');
    expect(build(dir, '--if-stale')).toEqual(['server']);
    // A dependency update changes both.
    writeFileSync(join(dir, 'package-lock.json'), '{"lockfileVersion":3}');
    expect(build(dir, '--if-stale')).toEqual(['server', 'ui']);
    // A checkout that rewrites a file with the same content (a newer time) changes nothing.
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(dir, 'src/server.ts'), later, later);
    expect(build(dir, '--if-stale')).toEqual([]);
  });

  it('rebuilds a part whose output is missing, and always builds without --if-stale', () => {
    const dir = project();
    build(dir, '--if-stale');
    rmSync(join(dir, 'dist/ui/views'), { recursive: true });
    expect(build(dir, '--if-stale')).toEqual(['ui']);
    expect(build(dir)).toEqual(['server', 'ui']);
  });

  it('is what npm start runs before starting, and npm run build runs in full', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toBe('node scripts/build.mjs --if-stale && node bin/outreach.js start');
    expect(pkg.scripts.build).toBe('node scripts/build.mjs');
  });
});
