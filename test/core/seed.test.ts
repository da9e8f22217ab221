// biome-ignore-all lint/suspicious/noThenProperty: an if step's branches are named then and else (docs/sequences.md); these objects are never awaited.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { leads, accounts, activity, exclusions } from '../../src/db/schema.js';
import { getAgent } from '../../src/core/agents/agents.js';
import { getCampaign } from '../../src/core/campaigns/campaign.js';
import { WorkspaceFile } from '../../src/core/seed/file.js';
import { loadWorkspace, SeedError } from '../../src/core/seed/load.js';
import { describeIssue, issueFields } from '../../src/core/validation.js';
import { fixture, testCtx } from '../helpers.js';

const parseFields = (value: unknown) => {
  const r = WorkspaceFile.safeParse(value);
  return r.success ? [] : r.error.issues.flatMap(issueFields);
};

describe('workspace file', () => {
  it('accepts the fixture and the self-hosting example shape', () => {
    expect(WorkspaceFile.safeParse(fixture()).success).toBe(true);
    expect(WorkspaceFile.safeParse({ apiKeys: [{ key: 'sk_test_abcdefghijklmnopqrstuvwx' }] }).success).toBe(true);
  });

  it('names the path of unknown keys anywhere', () => {
    const f: any = fixture();
    f.campaigns[0].leads[0].nickname = 'x';
    f.accounts[1].today = { bogus: 1 };
    f.extra = true;
    expect(parseFields(f).sort()).toEqual(['accounts[1].today.bogus', 'campaigns[0].leads[0].nickname', 'extra'].sort());
  });

  it('names the path of bad values', () => {
    const f: any = fixture();
    f.campaigns[0].leads[0].stage = 'sleeping';
    f.campaigns[0].status = 'RUNNING';
    f.apiKeys = [{ key: 'sk_test_short' }];
    f.credits.credits = -1;
    f.campaigns[0].leads[0].networkUrl = 'https://www.linkedin.com/company/acme';
    expect(parseFields(f).sort()).toEqual(
      ['apiKeys[0].key', 'campaigns[0].leads[0].networkUrl', 'campaigns[0].leads[0].stage', 'campaigns[0].status', 'credits.credits'].sort(),
    );
    const r = WorkspaceFile.safeParse(f);
    expect(r.success).toBe(false);
    if (!r.success) expect(r.error.issues.map((i) => describeIssue(i)).join('\n')).toContain('campaigns[0].leads[0].stage:');
  });

  it('holds accounts, agents, campaigns and leads to the bounds the API holds them to, naming each path', () => {
    const f: any = fixture();
    f.accounts[0].connectionRequestLimit = 101;
    f.accounts[0].messageLimit = 151;
    f.accounts[1].connectionRequestLimit = 0;
    f.agents[0].name = '  ';
    f.agents[0].connectionNote = 'Hi {{nickname}}';
    f.agents[0].messages = Array.from({ length: 11 }, (_, i) => ({ text: `m${i}`, delayHours: 24 }));
    f.agents.push({
      id: 'tpl_more',
      accountId: f.accounts[0].id,
      messages: [
        { text: 'Hi {{bogus}}', delayHours: 1.5 },
        { text: 'Later', delayHours: 721 },
      ],
    });
    f.campaigns[0].name = 'x'.repeat(121);
    f.campaigns[0].leads[0].firstName = 'A'.repeat(121);
    f.campaigns[0].leads[0].workExperience = [{ company: 'Engines', start: '2020-13' }];
    const last = f.agents.length - 1;
    expect(parseFields(f).sort()).toEqual(
      [
        'accounts[0].connectionRequestLimit',
        'accounts[0].messageLimit',
        'accounts[1].connectionRequestLimit',
        'agents[0].name',
        'agents[0].messages',
        `agents[${last}].messages[0].delayHours`,
        `agents[${last}].messages[1].delayHours`,
        'campaigns[0].name',
        'campaigns[0].leads[0].firstName',
        'campaigns[0].leads[0].workExperience[0].start',
      ].sort(),
    );
    // Placeholders are checked once the shape holds, as create_agent checks them.
    const g: any = fixture();
    g.agents[0].connectionNote = 'Hi {{nickname}}';
    g.agents[0].messages = [{ text: 'Hi {{bogus}}' }];
    expect(parseFields(g).sort()).toEqual(['agents[0].connectionNote', 'agents[0].messages[0].text']);
    const r = WorkspaceFile.safeParse(g);
    expect(r.success ? '' : describeIssue(r.error.issues[0]!)).toBe('agents[0].connectionNote: unknown placeholder "{{nickname}}"');
  });

  it('requires apiKeys', () => {
    expect(parseFields({})).toEqual(['apiKeys']);
    expect(parseFields({ apiKeys: [] })).toEqual(['apiKeys']);
  });

  it('loads everything, normalising URLs and snapshotting activity names', () => {
    const ctx = testCtx();
    const lead = ctx.db.select().from(leads).all()[0]!;
    expect(lead.networkUrl).toBe('https://www.linkedin.com/in/ada-lovelace');
    expect(ctx.db.select().from(accounts).all()).toHaveLength(3);
    expect(
      ctx.db
        .select()
        .from(exclusions)
        .all()
        .map((e) => e.networkUrl),
    ).toEqual(['https://www.linkedin.com/in/do-not-contact']);
    const evt = ctx.db.select().from(activity).all()[0]!;
    expect(evt.leadName).toBe('Ada Lovelace');
    expect(evt.companyName).toBe('Engines');
  });

  it('refuses a second load without reset, and replaces everything with reset', () => {
    const ctx = testCtx();
    const f = WorkspaceFile.parse({ ...fixture(), campaigns: [], activity: [] });
    expect(() => loadWorkspace(ctx, f, { reset: false })).toThrow(SeedError);
    expect(ctx.db.select().from(leads).all()).toHaveLength(1);
    loadWorkspace(ctx, f, { reset: true });
    expect(ctx.db.select().from(leads).all()).toHaveLength(0);
  });

  it('rolls back a file whose references do not hold, naming the field', () => {
    const ctx = testCtx({ workspace: null });
    const f: any = fixture();
    f.campaigns[1].assignedTemplateId = 'tpl_missing';
    expect(() => loadWorkspace(ctx, WorkspaceFile.parse(f), { reset: false })).toThrow(/campaigns\[1\]\.assignedTemplateId/);
    expect(ctx.db.select().from(accounts).all()).toHaveLength(0);
    const g: any = fixture();
    g.campaigns[0].leads.push({ networkUrl: 'http://uk.linkedin.com/in/Ada-Lovelace/' });
    expect(() => loadWorkspace(ctx, WorkspaceFile.parse(g), { reset: false })).toThrow(/campaigns\[0\]\.leads\[1\]\.networkUrl/);
    // An activity event's campaign must be in the file too.
    const h: any = fixture();
    h.activity[0].campaignId = 'cmp_nope';
    expect(() => loadWorkspace(ctx, WorkspaceFile.parse(h), { reset: false })).toThrow(/activity\[0\]\.campaignId: no campaign "cmp_nope"/);
    expect(ctx.db.select().from(activity).all()).toHaveLength(0);
    // Its lead and account may be gone: a deleted lead's history stays, with the name it had.
    const k: any = fixture();
    Object.assign(k.activity[0], { leadId: 'lead_deleted', accountId: 'acc_gone', leadName: 'Gone Person' });
    loadWorkspace(ctx, WorkspaceFile.parse(k), { reset: false });
    expect(ctx.db.select().from(activity).all()).toMatchObject([{ leadId: 'lead_deleted', leadName: 'Gone Person' }]);
  });

  it('loads agents written as steps (ids kept), and campaigns with their senders and approval', () => {
    const ctx = testCtx({ workspace: null });
    const f: any = fixture();
    f.agents.push({
      id: 'tpl_steps',
      name: 'Steps',
      accountId: 'acc_ada',
      steps: [
        { kind: 'visit' },
        { id: 'stp_note', kind: 'invite', note: 'Hi {{firstName}}', variants: [{ note: 'Hello {{firstName}}' }] },
        { kind: 'if', condition: 'accepted', withinHours: 72, then: [{ id: 'stp_thanks', kind: 'message', text: 'Thanks!' }], else: [{ kind: 'withdraw' }] },
      ],
    });
    f.campaigns.push({ id: 'cmp_senders', assignedTemplateId: 'tpl_steps', senderAccountIds: ['acc_nav', 'acc_ada', 'acc_nav'], approval: 'required' });
    loadWorkspace(ctx, WorkspaceFile.parse(f), { reset: false });

    const agent = getAgent(ctx, 'tpl_steps');
    expect(agent.steps.map((s) => s.kind)).toEqual(['visit', 'invite', 'if']);
    expect(agent.steps[0]!.id).toMatch(/^stp_/);
    expect(agent.steps[1]).toEqual({ id: 'stp_note', kind: 'invite', note: 'Hi {{firstName}}', variants: [{ note: 'Hello {{firstName}}' }] });
    expect(agent.steps[2]).toMatchObject({ then: [{ id: 'stp_thanks', kind: 'message', text: 'Thanks!' }], else: [{ kind: 'withdraw' }] });
    // connectionNote and messages read from the steps, as for an agent written with create_agent.
    expect(agent).toMatchObject({ connectionNote: 'Hi {{firstName}}', messages: [{ text: 'Thanks!' }] });
    // The older shape still loads, and reads as steps.
    expect(getAgent(ctx, 'tpl_intro').steps[0]).toMatchObject({ kind: 'invite', note: 'Hi {{firstName}}' });

    // A repeated sender counts once, in its first place.
    expect(getCampaign(ctx, 'cmp_senders')).toMatchObject({ senderAccountIds: ['acc_nav', 'acc_ada'], approval: 'required' });
    expect(getCampaign(ctx, 'cmp_q4')).toMatchObject({ senderAccountIds: [], approval: 'off' });
  });

  it('refuses steps that do not hold together, naming the path under the agent, and senders that are not accounts', () => {
    const refused = (change: (f: any) => void): string => {
      const ctx = testCtx({ workspace: null });
      const f: any = fixture();
      change(f);
      const parsed = WorkspaceFile.safeParse(f);
      if (!parsed.success) return `parse: ${parsed.error.issues.flatMap(issueFields).join(', ')}`;
      try {
        loadWorkspace(ctx, parsed.data, { reset: false });
      } catch (err) {
        expect(err).toBeInstanceOf(SeedError);
        expect(ctx.db.select().from(accounts).all()).toHaveLength(0);
        return (err as SeedError).path;
      }
      return 'loaded';
    };
    const withSteps = (steps: unknown[]) => (f: any) => f.agents.push({ id: 'tpl_s', accountId: 'acc_ada', steps });
    expect(refused(withSteps([{ kind: 'invite', note: 'Hi' }]))).toBe('loaded');
    expect(refused((f) => Object.assign(f.agents[0], { steps: [{ kind: 'visit' }] }))).toBe('agents[0].steps');
    expect(refused(withSteps([{ kind: 'visit' }, { kind: 'message', text: 'Hi {{nickname}}' }]))).toBe('agents[2].steps[1].text');
    expect(refused(withSteps([{ kind: 'invite' }, { kind: 'if', condition: 'accepted', withinHours: 5, then: [{ kind: 'invite' }] }]))).toMatch(
      /^agents\[2\]\.steps/,
    );
    expect(
      refused(
        withSteps([
          { id: 'stp_a', kind: 'visit' },
          { id: 'stp_a', kind: 'visit' },
        ]),
      ),
    ).toBe('agents[2].steps[1].id');
    expect(refused(withSteps([{ kind: 'wait', hours: 0 }]))).toBe('parse: agents[2].steps[0].hours');
    expect(refused((f) => Object.assign(f.campaigns[0], { senderAccountIds: ['acc_ada', 'acc_missing'] }))).toBe('campaigns[0].senderAccountIds[1]');
    expect(refused((f) => Object.assign(f.campaigns[0], { senderAccountIds: Array.from({ length: 21 }, () => 'acc_ada') }))).toBe(
      'parse: campaigns[0].senderAccountIds',
    );
  });

  it('loads every example of docs/workspace-file.md', () => {
    const doc = readFileSync(new URL('../../docs/workspace-file.md', import.meta.url), 'utf8');
    const examples = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!));
    expect(examples.length).toBeGreaterThanOrEqual(2);
    for (const example of examples) loadWorkspace(testCtx({ workspace: null }), WorkspaceFile.parse(example), { reset: false });
    const ctx = testCtx({ workspace: null });
    loadWorkspace(ctx, WorkspaceFile.parse(examples.at(-1)), { reset: false });
    expect(getCampaign(ctx, 'cmp_two')).toMatchObject({ senderAccountIds: ['acc_ann', 'acc_bob'], approval: 'required' });
    expect(getAgent(ctx, 'tpl_visit_invite').steps.map((s) => s.kind)).toEqual(['visit', 'invite', 'if']);
  });
});
