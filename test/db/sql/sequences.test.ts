import { and, asc, desc, eq, inArray, lte, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/connection.js';
import { leadPositions, leadStepVariants, stepEvents, stepStats } from '../../../src/db/schema.js';
import { type EventRow, sequenceStatements } from '../../../src/db/sql/sequences.js';
import { testCtx } from '../../helpers.js';

/** src/db/sql/sequences.ts writes and returns what the query builder would, on the same data. */
describe('sequence statements', () => {
  const base = { campaignId: 'cmp', agentId: 'tpl' };
  const events: Omit<EventRow, 'seq'>[] = [
    { ...base, leadId: 'l1', stepId: 's1', kind: 'invite', variant: 'A', event: 'sent', reason: null, at: 10 },
    { ...base, leadId: 'l1', stepId: 's1', kind: 'invite', variant: 'A', event: 'accepted', reason: null, at: 20 },
    { ...base, leadId: 'l1', stepId: 's2', kind: 'message', variant: 'B', event: 'sent', reason: null, at: 30 },
    { ...base, leadId: 'l1', stepId: 's3', kind: 'visit', variant: 'A', event: 'sent', reason: null, at: 40 },
    { ...base, leadId: 'l1', stepId: 's4', kind: 'inmail', variant: 'A', event: 'skipped', reason: 'no_sales_navigator', at: 50 },
    { ...base, leadId: 'l2', stepId: 's1', kind: 'invite', variant: 'B', event: 'sent', reason: null, at: 15 },
    { ...base, leadId: 'l2', stepId: 's1', kind: 'invite', variant: 'B', event: 'sent', reason: null, at: 15 },
    { ...base, leadId: 'l2', stepId: 's2', kind: 'message', variant: 'A', event: 'replied', reason: null, at: 60 },
  ];

  /** The same writes, once through the statements and once through the query builder. */
  function written(via: 'statements' | 'builder'): Db {
    const { db } = testCtx({ workspace: null });
    const s = sequenceStatements(db);
    const place = { ...base, leadId: 'l1', stepId: 's1', at: 5, endReason: null, endedAt: null };
    if (via === 'statements') {
      s.start.run(place);
      s.start.run({ ...place, stepId: 's9', at: 6 });
      s.place.run({ ...place, leadId: 'l2', stepId: 's2', at: 7 });
      s.move.run({ leadId: 'l1', stepId: 's2', at: 8 });
      s.end.run({ leadId: 'l2', reason: 'replied', at: 9 });
      s.move.run({ leadId: 'l2', stepId: 's3', at: 10 });
      s.insertVariant.run('l1', 's1', 'A', 1);
      s.insertVariant.run('l1', 's1', 'B', 2);
      for (const e of events) {
        s.insertEvent.run(e);
        if (e.event === 'sent' || e.event === 'skipped' || e.event === 'accepted' || e.event === 'replied')
          s.count[e.event].run(e.agentId, e.campaignId, e.stepId, e.variant);
      }
    } else {
      const row = (p: typeof place) => ({ ...p, enteredAt: p.at, updatedAt: p.at });
      db.insert(leadPositions).values(row(place)).onConflictDoNothing().run();
      db.insert(leadPositions)
        .values(row({ ...place, stepId: 's9', at: 6 }))
        .onConflictDoNothing()
        .run();
      db.insert(leadPositions)
        .values(row({ ...place, leadId: 'l2', stepId: 's2', at: 7 }))
        .run();
      const open = (leadId: string) => and(eq(leadPositions.leadId, leadId), sql`${leadPositions.endedAt} IS NULL`);
      db.update(leadPositions).set({ stepId: 's2', enteredAt: 8, updatedAt: 8 }).where(open('l1')).run();
      db.update(leadPositions).set({ stepId: null, endReason: 'replied', endedAt: 9, updatedAt: 9 }).where(open('l2')).run();
      db.update(leadPositions).set({ stepId: 's3', enteredAt: 10, updatedAt: 10 }).where(open('l2')).run();
      db.insert(leadStepVariants).values({ leadId: 'l1', stepId: 's1', variant: 'A', drawnAt: 1 }).onConflictDoNothing().run();
      db.insert(leadStepVariants).values({ leadId: 'l1', stepId: 's1', variant: 'B', drawnAt: 2 }).onConflictDoNothing().run();
      for (const e of events) {
        db.insert(stepEvents).values(e).run();
        const column = stepStats[e.event as 'sent' | 'skipped' | 'accepted' | 'replied'];
        db.insert(stepStats)
          .values({ agentId: e.agentId, campaignId: e.campaignId, stepId: e.stepId, variant: e.variant, [e.event]: 1 })
          .onConflictDoUpdate({
            target: [stepStats.agentId, stepStats.campaignId, stepStats.stepId, stepStats.variant],
            set: { [e.event]: sql`${column} + 1` },
          })
          .run();
      }
    }
    return db;
  }

  it('writes positions, variants, events and counts as the query builder does', () => {
    const a = written('statements');
    const b = written('builder');
    const tables = (db: Db) => ({
      positions: db.select().from(leadPositions).orderBy(asc(leadPositions.leadId)).all(),
      variants: db.select().from(leadStepVariants).all(),
      events: db.select().from(stepEvents).orderBy(asc(stepEvents.seq)).all(),
      stats: db.select().from(stepStats).orderBy(asc(stepStats.stepId), asc(stepStats.variant)).all(),
    });
    expect(tables(a)).toStrictEqual(tables(b));
    // And the writes did what they say: a first position is kept, an ended one does not move.
    expect(tables(a).positions.map((p) => [p.leadId, p.stepId, p.endReason])).toEqual([
      ['l1', 's2', null],
      ['l2', null, 'replied'],
    ]);
    expect(tables(a).stats.find((r) => r.stepId === 's1' && r.variant === 'B')?.sent).toBe(2);
  });

  it('reads positions, variants and events as the query builder does', () => {
    const db = written('statements');
    const s = sequenceStatements(db);
    const event = {
      seq: stepEvents.seq,
      leadId: stepEvents.leadId,
      campaignId: stepEvents.campaignId,
      agentId: stepEvents.agentId,
      stepId: stepEvents.stepId,
      kind: stepEvents.kind,
      variant: stepEvents.variant,
      event: stepEvents.event,
      reason: stepEvents.reason,
      at: stepEvents.at,
    };
    for (const lead of ['l1', 'l2', 'nobody']) {
      const { updatedAt: _, ...position } = db.select().from(leadPositions).where(eq(leadPositions.leadId, lead)).get() ?? { updatedAt: 0 };
      expect(s.position.get(lead)).toStrictEqual(lead === 'nobody' ? undefined : position);
      expect(s.variant.get(lead, 's1')).toBe(db.select().from(leadStepVariants).where(eq(leadStepVariants.leadId, lead)).get()?.variant);
      for (const kind of ['accepted', 'replied'] as const) {
        const has = db
          .select()
          .from(stepEvents)
          .where(and(eq(stepEvents.leadId, lead), eq(stepEvents.event, kind)))
          .get();
        expect(s.has[kind].get(lead)).toBe(has ? 1 : undefined);
      }
      const sent = and(eq(stepEvents.leadId, lead), eq(stepEvents.event, 'sent'));
      expect(s.lastInvite.get(lead)).toStrictEqual(
        db
          .select(event)
          .from(stepEvents)
          .where(and(sent, eq(stepEvents.kind, 'invite')))
          .orderBy(desc(stepEvents.seq))
          .get(),
      );
      for (const at of [0, 15, 35, 100]) {
        expect(s.lastReaching.get(lead, at)).toStrictEqual(
          db
            .select(event)
            .from(stepEvents)
            .where(and(sent, inArray(stepEvents.kind, ['invite', 'message', 'inmail']), lte(stepEvents.at, at)))
            .orderBy(desc(stepEvents.at), desc(stepEvents.seq))
            .get(),
        );
      }
    }
    // The reads found something to compare: the last message reaching l1 by 35 is its message.
    expect(s.lastReaching.get('l1', 35)?.stepId).toBe('s2');
  });
});
