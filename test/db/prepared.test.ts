import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { columnsOf, inserterOf, rawByName, rowsOf, selectList, tableName, updaterById } from '../../src/db/prepared.js';
import { accounts, agents, campaigns, leads, workspace } from '../../src/db/schema.js';
import { engineWorkspace } from '../engine/helpers.js';
import { testCtx } from '../helpers.js';
import { restoreCampaign } from '../../src/core/campaigns/state-machine.js';

describe('updaterById and inserterOf', () => {
  const updateLead = updaterById(leads);
  const insertLead = inserterOf(leads);

  it('writes exactly the columns given, in any order, nulls as NULL, and skips undefined ones', () => {
    const ctx = testCtx({ workspace: engineWorkspace(['ann-sim-never-accepts']) });
    const row = () => ctx.db.select().from(leads).where(eq(leads.id, 'lead_1')).get()!;
    const before = row();
    expect(updateLead(ctx.db, 'lead_1', { stage: 'connection_sent', invitedAt: 5, jobTitle: undefined })).toBe(1);
    expect(row()).toMatchObject({ stage: 'connection_sent', invitedAt: 5, jobTitle: before.jobTitle, firstName: before.firstName });
    // The same columns in another order, then a null where a value was.
    expect(updateLead(ctx.db, 'lead_1', { invitedAt: 7, stage: 'connected' })).toBe(1);
    expect(row()).toMatchObject({ stage: 'connected', invitedAt: 7 });
    expect(updateLead(ctx.db, 'lead_1', { stage: 'new', invitedAt: null })).toBe(1);
    expect(row()).toMatchObject({ stage: 'new', invitedAt: null });
    // A boolean column maps through its column (true is stored as 1 and read back as true).
    expect(updateLead(ctx.db, 'lead_1', { replied: true })).toBe(1);
    expect(row().replied).toBe(true);
    expect(updateLead(ctx.db, 'lead_1', {})).toBe(0);
    expect(updateLead(ctx.db, 'lead_1', { stage: undefined })).toBe(0);
    expect(updateLead(ctx.db, 'no_such_lead', { stage: 'new' })).toBe(0);
  });

  it('inserts a row from the columns given, leaving the others to their defaults', () => {
    const ctx = testCtx({ workspace: engineWorkspace([]) });
    insertLead(ctx.db, { id: 'lead_x', campaignId: 'cmp', networkUrl: 'https://www.linkedin.com/in/x', firstName: null, createdAt: 1, updatedAt: 1 });
    const row = ctx.db.select().from(leads).where(eq(leads.id, 'lead_x')).get()!;
    expect(row).toMatchObject({ campaignId: 'cmp', firstName: null, stage: 'new', replied: false, nextActionAt: 0 });
  });
});

describe('rows read in SQL', () => {
  it('select every column under its name in code, booleans decoded, as the query builder reads them', () => {
    const ctx = testCtx({ workspace: engineWorkspace(['ann-sim-never-accepts', { slug: 'bob-sim-never-accepts', excluded: true }]) });
    restoreCampaign(ctx, { id: 'cmp_none', name: 'No agent', status: 'READY_TO_SEND', importing: true, createdAt: 1, updatedAt: 1 });
    for (const table of [leads, campaigns, accounts, agents, workspace] as const) {
      const stmt = ctx.db.$client.prepare<[], Record<string, unknown>>(`SELECT ${selectList(table)} FROM ${tableName(table)} ORDER BY rowid`);
      expect(rowsOf(table, stmt).all(), tableName(table)).toStrictEqual(ctx.db.select().from(table).orderBy(sql`rowid`).all());
    }
    expect(
      columnsOf(leads)
        .filter((c) => c.boolean)
        .map((c) => c.key),
    ).toEqual(['excluded', 'replied', 'needsReply', 'connectionRequestAccepted', 'messageSent']);
  });
});

describe('rawByName', () => {
  it('gives rows as arrays and each named column at its index in the statement, whatever the order of the SELECT', () => {
    const ctx = testCtx({ workspace: engineWorkspace(['ann-sim-never-accepts']) });
    const read = rawByName(ctx.db.$client.prepare<[string]>('SELECT first_name, id, stage AS stage FROM leads WHERE id = ?'), ['id', 'stage', 'first_name']);
    expect(read.at).toEqual({ id: 1, stage: 2, first_name: 0 });
    const row = read.stmt.get('lead_1');
    expect(Array.isArray(row)).toBe(true);
    const built = ctx.db.select().from(leads).where(eq(leads.id, 'lead_1')).get()!;
    expect([row![read.at.id], row![read.at.stage], row![read.at.first_name]]).toEqual([built.id, built.stage, built.firstName]);
  });

  it('refuses, when prepared, a name the SELECT does not give or gives twice', () => {
    const ctx = testCtx({ workspace: engineWorkspace(['ann-sim-never-accepts']) });
    expect(() => rawByName(ctx.db.$client.prepare('SELECT id, stage FROM leads'), ['id', 'first_name'])).toThrow(/no columns named first_name/);
    expect(() => rawByName(ctx.db.$client.prepare('SELECT id, stage AS id FROM leads'), ['id'])).toThrow(/two columns named id/);
  });
});
