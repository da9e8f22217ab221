import { readdirSync, readFileSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES } from '../../src/core/events.js';
import { WEBHOOK_SCHEMA_DIR, webhookJsonSchema, webhookSchemaFiles } from '../../src/core/webhooks/json-schema.js';
import { recordLeadEvent } from '../../src/core/webhooks/outbox.js';
import { LeadRepliedEvent, LeadTaggedEvent, WEBHOOK_EVENT_SCHEMAS, WebhookEvent } from '../../src/core/webhooks/payloads.js';
import { messagePreview } from '../../src/core/text.js';
import { leads, webhookEvents } from '../../src/db/schema.js';
import { countRows, transaction } from '../../src/db/tx.js';
import { fixture, testCtx } from '../helpers.js';
import { tagLead } from './helpers.js';

const root = new URL('../../', import.meta.url);

function ctxWithLeads() {
  const ws = fixture();
  ws.campaigns
    ?.find((c) => c.id === 'cmp_q4')
    ?.leads?.push({ id: 'lead_own', networkUrl: 'https://www.linkedin.com/in/own-account', accountId: 'acc_nav', fullName: '  Grace Hopper ' });
  const noAgent = ws.campaigns?.find((c) => c.id === 'cmp_noagent');
  if (noAgent) noAgent.leads = [{ id: 'lead_orphan', networkUrl: 'https://www.linkedin.com/in/orphan' }];
  return testCtx({ workspace: ws });
}

const lead = (ctx: ReturnType<typeof testCtx>, id: string) => ctx.db.select().from(leads).where(eq(leads.id, id)).get()!;
const payloadOf = (ctx: ReturnType<typeof testCtx>, id: string): unknown =>
  JSON.parse(ctx.db.select().from(webhookEvents).where(eq(webhookEvents.id, id)).get()!.payload);

describe('webhook payloads', () => {
  it('lead.tagged carries the envelope, the lead after the change, its campaign, tag and previousTag', () => {
    const ctx = ctxWithLeads();
    const first = tagLead(ctx, 'lead_ada1', 'Interested');
    const second = tagLead(ctx, 'lead_ada1', 'Meeting request');
    const event = LeadTaggedEvent.parse(payloadOf(ctx, second));
    expect(event).toEqual({
      id: second,
      type: 'lead.tagged',
      createdAt: '2026-11-21T12:00:00.000Z',
      data: {
        accountId: 'acc_ada',
        campaign: { id: 'cmp_q4', name: 'Q4' },
        lead: {
          id: 'lead_ada1',
          fullName: 'Ada Lovelace',
          firstName: 'Ada',
          lastName: 'Lovelace',
          networkUrl: 'https://www.linkedin.com/in/ada-lovelace',
          jobTitle: 'CTO',
          companyName: 'Engines',
          tag: 'Meeting request',
          stage: 'new',
          excluded: false,
        },
        tag: 'Meeting request',
        previousTag: 'Interested',
      },
    });
    expect(first).toMatch(/^evt_[A-Za-z0-9]{16}$/);
    expect(LeadTaggedEvent.parse(payloadOf(ctx, first)).data.previousTag).toBeNull();
  });

  it("data.accountId is the lead's account, else its campaign agent's, else the inbox chat's", () => {
    const ctx = ctxWithLeads();
    const extra = { acceptedAt: '2026-11-21T11:00:00.000Z' };
    const own = transaction(ctx.db, () => recordLeadEvent(ctx, 'lead.connection_accepted', lead(ctx, 'lead_own'), extra, 'acc_chat'));
    const viaChat = transaction(ctx.db, () => recordLeadEvent(ctx, 'lead.connection_accepted', lead(ctx, 'lead_orphan'), extra, 'acc_chat'));
    const none = transaction(ctx.db, () => recordLeadEvent(ctx, 'lead.connection_accepted', lead(ctx, 'lead_orphan'), extra));
    const accountOf = (id: string) => WebhookEvent.parse(payloadOf(ctx, id)).data.accountId;
    expect([accountOf(own), accountOf(viaChat), accountOf(none)]).toEqual(['acc_nav', 'acc_chat', null]);
    expect(WebhookEvent.parse(payloadOf(ctx, own)).data.lead.fullName).toBe('Grace Hopper');
  });

  it("lead.replied carries the activity feed's 80-character preview of the message, null when it has no text", () => {
    const ctx = ctxWithLeads();
    const long = `  ${'é'.repeat(79)}😀 and the rest of a long message  `;
    const id = transaction(ctx.db, () =>
      recordLeadEvent(ctx, 'lead.replied', lead(ctx, 'lead_ada1'), { message: { text: long, receivedAt: '2026-11-21T11:59:00.000Z' } }),
    );
    const empty = transaction(ctx.db, () =>
      recordLeadEvent(ctx, 'lead.replied', lead(ctx, 'lead_ada1'), { message: { text: '   ', receivedAt: '2026-11-21T11:59:00.000Z' } }),
    );
    const text = LeadRepliedEvent.parse(payloadOf(ctx, id)).data.message.text;
    expect(text).toBe(`${'é'.repeat(79)}…`);
    expect(text).toBe(messagePreview(long));
    expect(LeadRepliedEvent.parse(payloadOf(ctx, empty)).data.message).toEqual({ text: null, receivedAt: '2026-11-21T11:59:00.000Z' });
    expect(messagePreview(null)).toBeNull();
  });

  it('lead.handed_off carries the reason', () => {
    const ctx = ctxWithLeads();
    const id = transaction(ctx.db, () => recordLeadEvent(ctx, 'lead.handed_off', lead(ctx, 'lead_ada1'), { handOffReason: 'asked for pricing' }));
    expect(WebhookEvent.parse(payloadOf(ctx, id))).toMatchObject({ type: 'lead.handed_off', data: { handOffReason: 'asked for pricing' } });
  });

  it('a payload that breaks its schema is refused, and the causing change rolls back with it', () => {
    const ctx = ctxWithLeads();
    expect(() =>
      transaction(ctx.db, () => {
        ctx.db.update(leads).set({ tag: 'Interested' }).where(eq(leads.id, 'lead_ada1')).run();
        recordLeadEvent(ctx, 'lead.tagged', lead(ctx, 'lead_ada1'), { tag: 'Hot' as never, previousTag: null });
      }),
    ).toThrow(/lead\.tagged payload breaks its schema.*data\.tag/);
    expect(lead(ctx, 'lead_ada1').tag).toBeNull();
    expect(countRows(ctx.db, webhookEvents)).toBe(0);
    expect(() => transaction(ctx.db, () => recordLeadEvent(ctx, 'lead.connection_accepted', lead(ctx, 'lead_ada1'), { acceptedAt: 'yesterday' }))).toThrow(
      /data\.acceptedAt/,
    );
  });
});

describe('published JSON Schemas', () => {
  it(`${WEBHOOK_SCHEMA_DIR}/ matches the zod schemas (regenerate with: npm run docs:webhooks)`, () => {
    const dir = new URL(`${WEBHOOK_SCHEMA_DIR}/`, root);
    const expected = webhookSchemaFiles();
    expect(
      readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .sort(),
    ).toEqual([...expected.keys()].sort());
    for (const [name, text] of expected) expect(readFileSync(new URL(name, dir), 'utf8'), `${name} is stale`).toBe(text);
  });

  it('has one schema per event type, requiring the envelope and allowing fields added later', () => {
    for (const type of WEBHOOK_EVENT_TYPES) {
      const schema = webhookJsonSchema(type) as { title: string; required: string[]; properties: Record<string, { const?: string; required?: string[] }> };
      expect(schema.title).toBe(type);
      expect(schema.required).toEqual(['id', 'type', 'createdAt', 'data']);
      expect(schema.properties.type?.const).toBe(type);
      expect(schema.properties.data?.required).toEqual(expect.arrayContaining(['accountId', 'campaign', 'lead']));
      expect(JSON.stringify(schema)).not.toContain('additionalProperties');
    }
  });

  it('docs/webhooks.md documents every event and every data field', () => {
    const doc = readFileSync(new URL('docs/webhooks.md', root), 'utf8');
    for (const type of WEBHOOK_EVENT_TYPES) {
      const section = doc.split(`### \`${type}\``)[1]?.split('\n### ')[0];
      expect(section, `a "### \`${type}\`" section`).toBeDefined();
      for (const field of Object.keys(WEBHOOK_EVENT_SCHEMAS[type].shape.data.shape)) {
        expect(section, `${type} documents data.${field}`).toContain(`data.${field}`);
      }
    }
  });
});
