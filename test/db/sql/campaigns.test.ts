import { asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/connection.js';
import { agents, campaigns } from '../../../src/db/schema.js';
import { campaignStatements } from '../../../src/db/sql/campaigns.js';
import { variedCtx } from './helpers.js';

/** src/db/sql/campaigns.ts returns and writes what the query builder would. */
describe('campaign statements', () => {
  const withAgent = (db: Db) =>
    db.select({ id: campaigns.id, status: campaigns.status, agent: agents }).from(campaigns).leftJoin(agents, eq(agents.id, campaigns.assignedTemplateId));

  it('reads running campaigns and one campaign with its agent, a missing agent as null', () => {
    const { db } = variedCtx();
    const s = campaignStatements(db);
    expect(s.running()).toStrictEqual(withAgent(db).where(eq(campaigns.status, 'CAMPAIGN_IN_PROGRESS')).orderBy(asc(campaigns.seq)).all());
    expect(s.running().map((c) => [c.id, c.agent?.id ?? null])).toEqual([
      ['cmp', 'tpl'],
      ['cmp_none', null],
    ]);
    for (const id of ['cmp', 'cmp_2', 'cmp_none', 'cmp_missing']) expect(s.withAgent(id)).toStrictEqual(withAgent(db).where(eq(campaigns.id, id)).get());
  });

  it("reads a campaign's status, its agent's account and its name", () => {
    const { db } = variedCtx();
    const s = campaignStatements(db);
    for (const id of ['cmp', 'cmp_none', 'cmp_missing']) {
      const row = db
        .select({
          status: campaigns.status,
          importing: campaigns.importing,
          importingHolder: campaigns.importingHolder,
          importingHost: campaigns.importingHost,
          importingPid: campaigns.importingPid,
          importingUntil: campaigns.importingUntil,
        })
        .from(campaigns)
        .where(eq(campaigns.id, id))
        .get();
      expect(s.statusOf(id)).toStrictEqual(row);
      expect(s.agentAccount.get(id)).toStrictEqual(
        db
          .select({ accountId: agents.accountId })
          .from(campaigns)
          .innerJoin(agents, eq(agents.id, campaigns.assignedTemplateId))
          .where(eq(campaigns.id, id))
          .get(),
      );
      expect(s.idAndName.get(id)).toStrictEqual(db.select({ id: campaigns.id, name: campaigns.name }).from(campaigns).where(eq(campaigns.id, id)).get());
    }
  });

  it('counts a stat as the query builder would', () => {
    const [a, b] = [variedCtx(), variedCtx()];
    campaignStatements(a.db).count.messagesSent.run({ campaignId: 'cmp', updatedAt: 77 });
    campaignStatements(a.db).count.repliesReceived.run({ campaignId: 'cmp', updatedAt: 78 });
    b.db.update(campaigns).set({ messagesSent: 1, updatedAt: 77 }).where(eq(campaigns.id, 'cmp')).run();
    b.db.update(campaigns).set({ repliesReceived: 1, updatedAt: 78 }).where(eq(campaigns.id, 'cmp')).run();
    const all = (db: Db) => db.select().from(campaigns).orderBy(campaigns.seq).all();
    expect(all(a.db)).toStrictEqual(all(b.db));
  });
});
