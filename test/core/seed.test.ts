import { describe, expect, it } from 'vitest';
import { leads, accounts, activity, exclusions } from '../../src/db/schema.js';
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
    const f = WorkspaceFile.parse({ ...fixture(), campaigns: [] });
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
  });
});
