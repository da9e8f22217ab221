import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fixture } from '../helpers.js';

const BIN = new URL('../../bin/outreach.js', import.meta.url).pathname;

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, OUTREACH_DB: '', OUTREACH_ENV: '', HOST: '', PORT: '' }, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('outreach members, login --member and audit', () => {
  const dir = mkdtempSync(join(tmpdir(), 'outreach-members-'));
  const db = join(dir, 'o.db');
  beforeAll(() => {
    const file = join(dir, 'ws.json');
    writeFileSync(file, JSON.stringify(fixture()));
    expect(run(['seed', '--file', file, '--db', db]).status).toBe(0);
  });

  it('adds the owner first, then a team, lists, updates and disables, and records each change as the owner', () => {
    const owner = run(['members', 'add', '--name', 'Olga Owner', '--email', 'OLGA@example.com', '--role', 'viewer', '--json', '--db', db]);
    expect(owner.status, owner.stderr).toBe(0);
    const o = JSON.parse(owner.stdout) as { id: string; role: string; email: string };
    expect(o).toMatchObject({ role: 'owner', email: 'olga@example.com' });

    const rita = JSON.parse(run(['members', 'add', '--name', 'Rita', '--email', 'rita@example.com', '--role', 'reviewer', '--json', '--db', db]).stdout) as {
      id: string;
    };
    const dup = run(['members', 'add', '--name', 'Rita again', '--email', 'rita@example.com', '--db', db]);
    expect(dup.status).not.toBe(0);
    expect(dup.stderr).toMatch(/--email: rita@example.com is already the email of member/);
    const badRole = run(['members', 'add', '--name', 'X', '--email', 'x@example.com', '--role', 'boss', '--db', db]);
    expect(badRole.status).not.toBe(0);
    expect(badRole.stderr).toMatch(/--role: "boss" must be one of owner, admin, operator, reviewer, viewer/);

    const updated = run(['members', 'update', rita.id, '--role', 'operator', '--json', '--db', db]);
    expect(JSON.parse(updated.stdout)).toMatchObject({ id: rita.id, role: 'operator' });
    const ownerRole = run(['members', 'update', o.id, '--role', 'admin', '--db', db]);
    expect(ownerRole.status).not.toBe(0);
    expect(ownerRole.stderr).toMatch(/--role: the owner's role cannot change/);

    const link = run(['login', '--member', rita.id, '--db', db, '--base', 'http://127.0.0.1:3000']);
    expect(link.status, link.stderr).toBe(0);
    expect(link.stdout).toMatch(/signs in Rita \(operator\)/);
    expect(link.stdout.trim().split('\n').at(-1)).toMatch(/^http:\/\/127\.0\.0\.1:3000\/app\/login\?token=[A-Za-z0-9_-]{43}$/);

    const disabled = run(['members', 'disable', rita.id, '--db', db]);
    expect(disabled.stdout).toMatch(new RegExp(`Disabled ${rita.id}`));
    const noLink = run(['login', '--member', rita.id, '--db', db]);
    expect(noLink.status).not.toBe(0);
    expect(noLink.stderr).toMatch(/--member: no active member/);

    const list = run(['members', 'list', '--db', db]);
    expect(list.stdout).toMatch(/Olga Owner\s+olga@example.com\s+owner\s+active/);
    expect(list.stdout).toMatch(new RegExp(`${rita.id}\\s+Rita\\s+rita@example.com\\s+operator\\s+disabled`));

    // Enabled again: active, and a new link signs her in; the owner cannot be disabled.
    const enabled = run(['members', 'enable', rita.id, '--db', db]);
    expect(enabled.status, enabled.stderr).toBe(0);
    expect(enabled.stdout).toMatch(new RegExp(`Enabled ${rita.id}`));
    expect(enabled.stdout).toMatch(new RegExp(`outreach login --member ${rita.id}`));
    expect(run(['members', 'list', '--db', db]).stdout).toMatch(new RegExp(`${rita.id}\\s+Rita\\s+rita@example.com\\s+operator\\s+active`));
    expect(run(['login', '--member', rita.id, '--db', db]).status).toBe(0);
    const unknown = run(['members', 'enable', 'usr_nobody', '--db', db]);
    expect(unknown.status).not.toBe(0);
    expect(unknown.stderr).toMatch(/No member usr_nobody/);
    const ownerOff = run(['members', 'disable', o.id, '--db', db]);
    expect(ownerOff.status).not.toBe(0);
    expect(ownerOff.stderr).toMatch(/the owner cannot be disabled/);

    const audit = JSON.parse(run(['audit', '--target', rita.id, '--json', '--db', db]).stdout) as {
      events: { action: string; actor: { type: string; id: string; name: string } }[];
    };
    expect(audit.events.map((e) => e.action)).toEqual(['login.link', 'enable_member', 'disable_member', 'login.link', 'update_member', 'add_member']);
    expect(audit.events.every((e) => e.actor.type === 'member' && e.actor.id === o.id && e.actor.name === 'Olga Owner')).toBe(true);
    const csv = run(['audit', '--csv', '--actor', o.id, '--db', db]).stdout.trim().split('\n');
    expect(csv[0]).toBe('at,actorType,actorId,actorName,action,targetIds,summary');
    expect(csv.length).toBeGreaterThanOrEqual(6);
  }, 120_000);

  it('makes the owner on first use when a workspace has no member yet', () => {
    const other = join(dir, 'fresh.db');
    const file = join(dir, 'ws2.json');
    writeFileSync(file, JSON.stringify(fixture()));
    expect(run(['seed', '--file', file, '--db', other]).status).toBe(0);
    const r = run(['login', '--db', other, '--base', 'http://127.0.0.1:3000']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/signs in Owner \(owner\)/);
    const owners = JSON.parse(run(['members', 'list', '--json', '--db', other]).stdout) as { id: string }[];
    expect(owners).toMatchObject([{ name: 'Owner', role: 'owner', email: null }]);
    // Someone holds a link to that owner: it is theirs, so a person added is not made the owner over it.
    const bob = run(['members', 'add', '--name', 'Bob', '--email', 'bob@example.com', '--json', '--db', other]);
    expect(bob.status, bob.stderr).toBe(0);
    expect(JSON.parse(bob.stdout)).toMatchObject({ role: 'viewer' });
    const asOwner = run(['members', 'add', '--name', 'Me', '--email', 'me@example.com', '--role', 'owner', '--db', other]);
    expect(asOwner.status).not.toBe(0);
    expect(asOwner.stderr).toContain(
      `made on first use, with no email yet). If that is you, set your name and email on it: \`outreach members update ${owners[0]!.id} --name NAME --email EMAIL\``,
    );
  });

  it('lets the first person added take over the owner that CLI writes made, with what it did', () => {
    const seeded = (name: string) => {
      const path = join(dir, `${name}.db`);
      const file = join(dir, `${name}.json`);
      writeFileSync(file, JSON.stringify(fixture()));
      expect(run(['seed', '--file', file, '--db', path]).status).toBe(0);
      const key = run(['keys', 'create', '--env', 'test', '--name', 'ci', '--db', path]);
      expect(key.status, key.stderr).toBe(0);
      const made = JSON.parse(run(['members', 'list', '--json', '--db', path]).stdout) as { id: string }[];
      expect(made).toMatchObject([{ name: 'Owner', role: 'owner', email: null }]);
      return { path, ownerId: made[0]!.id };
    };
    const listed = (path: string) => JSON.parse(run(['members', 'list', '--json', '--db', path]).stdout) as { id: string; name: string; role: string }[];

    // The first person added, with no role, is the owner: the same member that created the key.
    const one = seeded('keys-first');
    const ada = run(['members', 'add', '--name', 'Ada', '--email', 'ADA@example.com', '--json', '--db', one.path]);
    expect(ada.status, ada.stderr).toBe(0);
    expect(JSON.parse(ada.stdout)).toMatchObject({ id: one.ownerId, name: 'Ada', email: 'ada@example.com', role: 'owner' });
    expect(listed(one.path)).toMatchObject([{ id: one.ownerId, name: 'Ada', role: 'owner' }]);
    const trail = JSON.parse(run(['audit', '--actor', one.ownerId, '--json', '--db', one.path]).stdout) as { events: { action: string }[] };
    expect(trail.events.map((e) => e.action)).toEqual(['add_member', 'keys.create']);
    expect(run(['login', '--db', one.path, '--base', 'http://127.0.0.1:3000']).stdout).toMatch(/signs in Ada \(owner\)/);

    // A role other than owner is added as asked beside it; asking for owner later takes it over.
    const two = seeded('keys-then-team');
    const viv = JSON.parse(run(['members', 'add', '--name', 'Viv', '--email', 'viv@example.com', '--role', 'operator', '--json', '--db', two.path]).stdout);
    expect(viv).toMatchObject({ name: 'Viv', role: 'operator' });
    const olga = run(['members', 'add', '--name', 'Olga', '--email', 'olga@example.com', '--role', 'owner', '--json', '--db', two.path]);
    expect(olga.status, olga.stderr).toBe(0);
    expect(JSON.parse(olga.stdout)).toMatchObject({ id: two.ownerId, name: 'Olga', role: 'owner' });
    expect(listed(two.path).map((m) => [m.name, m.role])).toEqual([
      ['Olga', 'owner'],
      ['Viv', 'operator'],
    ]);
    // Claimed now: nobody else becomes the owner.
    const again = run(['members', 'add', '--name', 'Eve', '--email', 'eve@example.com', '--role', 'owner', '--db', two.path]);
    expect(again.status).not.toBe(0);
    expect(again.stderr).toMatch(/--role: the workspace has its owner; add an admin instead/);
  });
});
