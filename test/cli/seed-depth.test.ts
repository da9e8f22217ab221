import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture } from '../helpers.js';

const BIN = new URL('../../bin/outreach.js', import.meta.url).pathname;

function seed(fileText: string) {
  const dir = mkdtempSync(join(tmpdir(), 'outreach-seed-depth-'));
  const file = join(dir, 'ws.json');
  writeFileSync(file, fileText);
  const db = join(dir, 'o.db');
  const r = spawnSync(process.execPath, [BIN, 'seed', '--file', file, '--db', db], {
    env: { ...process.env, OUTREACH_DB: '', OUTREACH_ENV: '' },
    encoding: 'utf8',
  });
  return { ...r, db };
}

describe('outreach seed: a workspace file is held to the rules of a tool call', () => {
  it('an agent whose steps nest 3,000 deep is one usage line naming where, not a crash', () => {
    const ws = JSON.stringify({ ...fixture(), agents: '__agents__' });
    const steps = `[${'{"kind":"if","condition":"replied","withinHours":1,"then":['.repeat(3000)}{"kind":"visit"}${']}'.repeat(3000)}]`;
    const r = seed(ws.replace('"__agents__"', `[{"id":"tpl_deep","name":"Deep","accountId":"acc_ada","steps":${steps}}]`));
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^outreach: --file: agents\[0\]\.steps(\[0\]\.then)+\[0\]: nested more than 32 levels deep/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a NUL in a name is refused with its path', () => {
    const ws = fixture() as any;
    ws.agents[0].name = 'Intro\u0000';
    const r = seed(JSON.stringify(ws));
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('agents[0].name: holds a NUL character');
    expect(existsSync(r.db)).toBe(false);
  });
});
