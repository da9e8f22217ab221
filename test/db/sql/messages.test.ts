import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/connection.js';
import { conversations, messages } from '../../../src/db/schema.js';
import { insertMessage, messageStatements, type ThreadValues } from '../../../src/db/sql/messages.js';
import { variedCtx } from './helpers.js';

/**
 * The thread summary as the query builder writes it (what messageStatements replaced), the
 * channel set after it as it was before upsertThread wrote it: by the newest message.
 */
function builderUpsert(db: Db, v: ThreadValues): void {
  const p = (x: unknown) => sql`${x}`;
  db.insert(conversations)
    .values({
      leadId: v.leadId,
      campaignId: v.campaignId,
      lastInboundAt: v.inboundAt,
      lastMessageAt: v.at,
      lastDirection: v.direction,
      lastSender: v.sender,
      lastPreview: v.preview,
      messageCount: 1,
    })
    .onConflictDoUpdate({
      target: conversations.leadId,
      set: {
        lastInboundAt: sql`max(${conversations.lastInboundAt}, ${p(v.inboundAt)})`,
        lastDirection: sql`case when ${p(v.at)} >= ${conversations.lastMessageAt} then ${p(v.direction)} else ${conversations.lastDirection} end`,
        lastSender: sql`case when ${p(v.at)} >= ${conversations.lastMessageAt} then ${p(v.sender)} else ${conversations.lastSender} end`,
        lastPreview: sql`case when ${p(v.at)} >= ${conversations.lastMessageAt} then ${p(v.preview)} else ${conversations.lastPreview} end`,
        lastMessageAt: sql`max(${conversations.lastMessageAt}, ${p(v.at)})`,
        messageCount: sql`${conversations.messageCount} + 1`,
      },
    })
    .run();
  db.update(conversations)
    .set({ lastChannel: v.channel })
    .where(sql`${conversations.leadId} = ${v.leadId} AND ${conversations.lastMessageAt} <= ${v.at}`)
    .run();
}

/** src/db/sql/messages.ts writes what the query builder would. */
describe('message statements', () => {
  it('records messages and keeps each thread summary, a late message leaving the newest preview', () => {
    const [a, b] = [variedCtx(), variedCtx()];
    const thread = (leadId: string, at: number, direction: string, preview: string, channel = 'linkedin'): ThreadValues => ({
      leadId,
      campaignId: 'cmp',
      inboundAt: direction === 'inbound' ? at : 0,
      at,
      direction,
      sender: direction === 'inbound' ? 'lead' : 'sequence',
      preview,
      channel,
    });
    const steps = [
      thread('lead_1', 10, 'outbound', 'Hi'),
      thread('lead_1', 30, 'inbound', 'Hello', 'email'),
      thread('lead_1', 20, 'outbound', 'Late'),
      thread('lead_3', 5, 'outbound', 'Yo', 'email'),
      thread('lead_3', 5, 'inbound', 'Same time'),
    ];
    steps.forEach((t, i) => {
      const m = {
        id: `msg_${i}`,
        leadId: t.leadId,
        campaignId: 'cmp',
        accountId: 'acc_a',
        direction: t.direction,
        sender: t.sender,
        text: t.preview,
        at: t.at,
      };
      insertMessage(a.db, m);
      b.db.insert(messages).values(m).run();
      messageStatements(a.db).upsertThread.run(t);
      builderUpsert(b.db, t);
    });
    const dump = (db: Db) => ({
      m: db.select().from(messages).orderBy(messages.seq).all(),
      c: db.select().from(conversations).orderBy(conversations.seq).all(),
    });
    expect(dump(a.db)).toStrictEqual(dump(b.db));
    expect(a.db.select().from(conversations).where(eq(conversations.leadId, 'lead_1')).get()).toMatchObject({
      lastPreview: 'Hello',
      lastMessageAt: 30,
      lastInboundAt: 30,
      messageCount: 3,
      lastChannel: 'email',
    });
    // A message at the thread's newest time marks it with its own channel.
    expect(a.db.select().from(conversations).where(eq(conversations.leadId, 'lead_3')).get()).toMatchObject({ lastChannel: 'linkedin', messageCount: 2 });
  });
});
