// biome-ignore-all lint/suspicious/noThenProperty: an if step's branches are named then and else (docs/sequences.md); these objects are never awaited.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture } from '../helpers.js';

const BIN = new URL('../../bin/outreach.js', import.meta.url).pathname;

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, OUTREACH_DB: '', OUTREACH_ENV: '' }, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the operator CLI: steps, senders and the new limits', () => {
  it('creates a steps agent from a file, a campaign with senders, and an account with visit and like limits', () => {
    const dir = mkdtempSync(join(tmpdir(), 'outreach-seq-cli-'));
    const ws = join(dir, 'ws.json');
    writeFileSync(ws, JSON.stringify(fixture()));
    const db = join(dir, 'o.db');
    expect(run(['seed', '--file', ws, '--db', db]).status).toBe(0);

    const agentFile = join(dir, 'agent.json');
    writeFileSync(
      agentFile,
      JSON.stringify({
        name: 'Branching',
        accountId: 'acc_ada',
        steps: [
          { kind: 'invite', note: 'Hi {{firstName}}' },
          { kind: 'if', condition: 'accepted', withinHours: 72, then: [{ kind: 'message', text: 'Thanks' }], else: [{ kind: 'withdraw' }] },
        ],
      }),
    );
    const agent = run(['agents', 'create', '--file', agentFile, '--db', db]);
    expect(agent.status, agent.stderr).toBe(0);
    expect(agent.stdout).toMatch(
      /^Created agent tpl_\S+ \(Branching\): account acc_ada, 4 steps \(2 in branches\): invite, if accepted; 1 message\(s\) on the main path\.\n$/,
    );
    // A sequence with no LinkedIn message on its main path still says what it holds.
    writeFileSync(
      agentFile,
      JSON.stringify({ name: 'Visitor', accountId: 'acc_ada', steps: [{ kind: 'visit' }, { kind: 'wait', hours: 24 }, { kind: 'like_post' }] }),
    );
    const visitor = run(['agents', 'create', '--file', agentFile, '--db', db]);
    expect(visitor.status, visitor.stderr).toBe(0);
    expect(visitor.stdout).toMatch(
      /^Created agent tpl_\S+ \(Visitor\): account acc_ada, 3 steps: visit, wait, like_post; 0 message\(s\) on the main path\.\n$/,
    );
    const visitorId = /agent (\S+) /.exec(visitor.stdout)![1]!;
    const agentRows = run(['agents', 'list', '--db', db]).stdout.trim().split('\n');
    expect(agentRows[0]!.split(/\s{2,}/)).toEqual(['ID', 'NAME', 'ACCOUNT', 'NOTE', 'MESSAGES', 'STEPS']);
    expect(agentRows.find((r) => r.startsWith(visitorId))!.split(/\s{2,}/)).toEqual([visitorId, 'Visitor', 'acc_ada', 'no', '0', '3']);
    writeFileSync(agentFile, JSON.stringify({ name: 'Bad', accountId: 'acc_ada', steps: [{ kind: 'message', text: 'Hi {{nick}}' }] }));
    const bad = run(['agents', 'create', '--file', agentFile, '--db', db]);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('steps[0].text');

    const campaign = run(['campaigns', 'create', '--name', 'Rotating', '--agent', 'tpl_intro', '--senders', 'acc_ada,acc_nav', '--db', db]);
    expect(campaign.status, campaign.stderr).toBe(0);
    const campaignId = /campaign (\S+) /.exec(campaign.stdout)![1]!;
    const listed = JSON.parse(run(['campaigns', 'list', '--json', '--db', db]).stdout).campaigns;
    expect(listed.find((c: { id: string }) => c.id === campaignId).senderAccountIds).toEqual(['acc_ada', 'acc_nav']);
    expect(run(['campaigns', 'update', campaignId, '--senders', 'none', '--db', db]).stdout).toContain(
      `Updated campaign ${campaignId}: Rotating, agent tpl_intro, approval off, READY_TO_SEND.`,
    );
    const unknown = run(['campaigns', 'create', '--name', 'X', '--senders', 'acc_ada,acc_zzz', '--db', db]);
    expect(unknown.status).not.toBe(0);
    expect(unknown.stderr).toContain('acc_zzz');

    const account = run(['accounts', 'connect', '--name', 'Liker', '--visit-limit', '70', '--like-limit', '20', '--warm-up', 'false', '--db', db]);
    expect(account.status, account.stderr).toBe(0);
    const accounts = JSON.parse(run(['accounts', 'list', '--json', '--db', db]).stdout).accounts;
    expect(accounts.find((a: { name: string }) => a.name === 'Liker').limits).toMatchObject({ profileVisitLimit: 70, postReactionLimit: 20 });
    const over = run(['accounts', 'update', 'acc_ada', '--visit-limit', '151', '--db', db]);
    expect(over.status).not.toBe(0);
    expect(over.stderr).toContain('--visit-limit');
  }, 240_000);

  it("sets, replaces and clears a campaign's mailboxes with a repeatable --mailbox, and names an unknown one", () => {
    const dir = mkdtempSync(join(tmpdir(), 'outreach-mbx-cli-'));
    const ws = join(dir, 'ws.json');
    const mailboxes = [
      { id: 'mbx_north', name: 'North', address: 'north@outreach.test' },
      { id: 'mbx_south', name: 'South', address: 'south@outreach.test' },
    ];
    writeFileSync(ws, JSON.stringify({ ...fixture(), mailboxes }));
    const db = join(dir, 'o.db');
    const seeded = run(['seed', '--file', ws, '--db', db]);
    expect(seeded.status, seeded.stderr).toBe(0);
    const mailboxIdsOf = (id: string) =>
      JSON.parse(run(['campaigns', 'list', '--json', '--db', db]).stdout).campaigns.find((c: { id: string }) => c.id === id).mailboxIds;

    const created = run(['campaigns', 'create', '--name', 'Two channels', '--mailbox', 'mbx_north', '--mailbox', 'mbx_south', '--db', db]);
    expect(created.status, created.stderr).toBe(0);
    const campaignId = /campaign (\S+) /.exec(created.stdout)![1]!;
    expect(mailboxIdsOf(campaignId)).toEqual(['mbx_north', 'mbx_south']);

    const replaced = run(['campaigns', 'update', campaignId, '--mailbox', 'mbx_south', '--db', db]);
    expect(replaced.status, replaced.stderr).toBe(0);
    expect(replaced.stdout).toContain(`Updated campaign ${campaignId}: Two channels, agent none, mailboxes mbx_south, approval off`);
    expect(mailboxIdsOf(campaignId)).toEqual(['mbx_south']);

    // Updating something else leaves the mailboxes as they are.
    expect(run(['campaigns', 'update', campaignId, '--name', 'Renamed', '--db', db]).status).toBe(0);
    expect(mailboxIdsOf(campaignId)).toEqual(['mbx_south']);

    const unknown = run(['campaigns', 'update', campaignId, '--mailbox', 'mbx_south', '--mailbox', 'mbx_nowhere', '--db', db]);
    expect(unknown.status).not.toBe(0);
    expect(unknown.stderr).toContain('--mailbox');
    expect(unknown.stderr).toContain('mbx_nowhere');
    expect(mailboxIdsOf(campaignId)).toEqual(['mbx_south']);

    const mixed = run(['campaigns', 'update', campaignId, '--mailbox', 'none', '--mailbox', 'mbx_north', '--db', db]);
    expect(mixed.status).not.toBe(0);
    expect(mixed.stderr).toContain('--mailbox: none clears');

    expect(run(['campaigns', 'update', campaignId, '--mailbox', 'none', '--db', db]).status).toBe(0);
    expect(mailboxIdsOf(campaignId)).toEqual([]);
  }, 240_000);
});
