import type { Client } from '@modelcontextprotocol/client';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityEvent, listActivity } from '../../src/core/activity/list.js';
import { MESSAGE_PREVIEW_MAX, messagePreview } from '../../src/core/text.js';
import { encodeCursor } from '../../src/core/cursor.js';
import { ACTIVITY_TYPES } from '../../src/core/leads/enums.js';
import { getWorkspace } from '../../src/core/workspace/get.js';
import { activity } from '../../src/db/schema.js';
import type { WorkspaceFileInput } from '../../src/core/seed/file.js';
import { fixture, startTestServer, testCtx, type TestServer, RELAXED_LIMITS } from '../helpers.js';
import { captureQueries, queryPlan } from '../plans.js';
import { expectValidation, readBoth } from '../transports.js';

type EventInput = NonNullable<WorkspaceFileInput['activity']>[number];

const at = (minute: number) => new Date(Date.parse('2026-11-10T00:00:00Z') + minute * 60_000).toISOString();
const LONG = 'Thanks for reaching out! I would love to hear more about the product and how it could help our sales team grow.';
const EMOJI = `${'a'.repeat(79)}😀 and more text after the emoji`;

/** Seeded in this order, so equal timestamps are ordered by insertion (later first). */
const EVENTS: EventInput[] = [
  { id: 'e01', type: 'connection_request_sent', timestamp: at(1), leadId: 'lead_ada1', campaignId: 'cmp_q4', accountId: 'acc_ada' },
  { id: 'e02', type: 'connection_accepted', timestamp: at(2), leadId: 'lead_ada1', campaignId: 'cmp_q4', accountId: 'acc_ada' },
  {
    id: 'e03',
    type: 'message_sent',
    timestamp: at(3),
    leadId: 'lead_ada1',
    campaignId: 'cmp_q4',
    messagePreview: 'Thanks for connecting',
    accountId: 'acc_ada',
  },
  { id: 'e04', type: 'reply_received', timestamp: at(4), leadId: 'lead_ada1', campaignId: 'cmp_q4', messagePreview: LONG },
  { id: 'e05', type: 'agent_replied', timestamp: at(4), leadId: 'lead_ada1', campaignId: 'cmp_q4', messagePreview: EMOJI },
  {
    id: 'e06',
    type: 'agent_handed_off',
    timestamp: at(4),
    leadId: 'lead_ada1',
    campaignId: 'cmp_q4',
    handOffReason: ' Asked for pricing ',
    messagePreview: '   ',
  },
  { id: 'e07', type: 'reply_received', timestamp: at(5), leadId: 'lead_gone', campaignId: 'cmp_paused', leadName: '  Grace Hopper ', companyName: 'Navy' },
  { id: 'e08', type: 'reply_received', timestamp: at(6), leadId: 'lead_unknown', campaignId: 'cmp_paused', leadName: '  ', companyName: '' },
  // A manual operator send, newest of all: recorded, never listed.
  {
    id: 'e09',
    type: 'message_sent',
    timestamp: at(9),
    leadId: 'lead_ada1',
    campaignId: 'cmp_q4',
    messagePreview: 'manual',
    accountId: 'acc_ada',
    manual: true,
  },
];
const LISTED = ['e08', 'e07', 'e06', 'e05', 'e04', 'e03', 'e02', 'e01', 'evt_1'];

let server: TestServer;
let client: Client;

beforeAll(async () => {
  const file = fixture();
  file.activity!.push(...EVENTS);
  // evt_1 of the fixture is at 2026-11-02, before all of these.
  server = await startTestServer({ workspace: file, limits: RELAXED_LIMITS });
  client = await server.mcp();
});
afterAll(() => server.close());

const recent = (args: Record<string, unknown> = {}) => readBoth(server, client, 'get_recent_activity', args);
const ids = (res: { body: any }) => res.body.events.map((e: { id: string }) => e.id);

describe('get_recent_activity', () => {
  it('lists events newest first, ties by insertion, without manual sends', async () => {
    const res = await recent();
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual(LISTED);
    expect(res.body.nextCursor).toBeNull();
  });

  it('returns exactly the event fields, never account ids', async () => {
    const res = await recent();
    const text = JSON.stringify(res.body);
    expect(text).not.toContain('acc_ada');
    expect(text).not.toContain('accountId');
    expect(text).not.toContain('manual');
    for (const event of res.body.events) {
      expect(Object.keys(event).sort()).toEqual(Object.keys(ActivityEvent.shape).sort());
      expect(ActivityEvent.strict().parse(event)).toEqual(event);
    }
    expect(res.body.events.find((e: any) => e.id === 'e03')).toEqual({
      id: 'e03',
      type: 'message_sent',
      timestamp: at(3),
      leadId: 'lead_ada1',
      leadName: 'Ada Lovelace',
      companyName: 'Engines',
      campaignId: 'cmp_q4',
      messagePreview: 'Thanks for connecting',
      handOffReason: null,
    });
  });

  it('names the lead from the snapshot; trims it; null when no name was known', async () => {
    const byId = new Map<string, any>((await recent()).body.events.map((e: any) => [e.id, e]));
    expect(byId.get('e07')).toMatchObject({ leadName: 'Grace Hopper', companyName: 'Navy' });
    expect(byId.get('e08')).toMatchObject({ leadName: null, companyName: null });
    expect(byId.get('e06')).toMatchObject({ handOffReason: 'Asked for pricing', messagePreview: null });
  });

  it('truncates messagePreview to 80 characters, never splitting a character', async () => {
    const byId = new Map<string, any>((await recent()).body.events.map((e: any) => [e.id, e]));
    // A preview stored longer than 80 (an import, an older row) is cut as a new one is, with its ellipsis.
    expect(byId.get('e04').messagePreview).toBe(`${LONG.slice(0, 79).trimEnd()}…`);
    expect(byId.get('e05').messagePreview).toBe(`${'a'.repeat(79)}…`);
    for (const event of byId.values()) expect((event as any).messagePreview?.length ?? 0).toBeLessThanOrEqual(80);
  });

  it.each(ACTIVITY_TYPES.map((t) => [t]))('type=%s lists only that type', async (type) => {
    const res = await recent({ type });
    expect(res.status).toBe(200);
    for (const event of res.body.events) expect(event.type).toBe(type);
    const expected = (await recent()).body.events.filter((e: any) => e.type === type).map((e: any) => e.id);
    expect(ids(res)).toEqual(expected);
  });

  it('a type with no events is an empty page with nextCursor null', async () => {
    expect((await recent({ type: 'cta_sent' })).body).toEqual({ events: [], nextCursor: null });
    expect((await recent({ type: 'cta_sent', limit: 1 })).body).toEqual({ events: [], nextCursor: null });
  });

  it('pages with limit and cursor until nextCursor is null', async () => {
    for (const limit of [1, 2, 4]) {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (;;) {
        const res = await recent({ limit, ...(cursor ? { cursor } : {}) });
        seen.push(...ids(res));
        if (res.body.nextCursor === null) break;
        expect(res.body.events).toHaveLength(limit);
        cursor = res.body.nextCursor;
      }
      expect(seen).toEqual(LISTED);
    }
    const replies = await recent({ type: 'reply_received', limit: 1 });
    const next = await recent({ type: 'reply_received', limit: 5, cursor: replies.body.nextCursor });
    expect([...ids(replies), ...ids(next)]).toEqual(['e08', 'e07', 'e04', 'evt_1']);
    expect(next.body.nextCursor).toBeNull();
  });

  it.each([
    ['an unknown type', { type: 'profile_viewed' }, 'type'],
    ['a manual type name', { type: 'manual' }, 'type'],
    ['limit=0', { limit: 0 }, 'limit'],
    ['limit=101', { limit: 101 }, 'limit'],
    ['an unknown argument', { since: '2026-01-01' }, 'since'],
    ['a garbage cursor', { cursor: 'abc.def' }, 'cursor'],
  ])('%s is a 400 naming it', async (_name, args, field) => {
    expectValidation(await recent(args), field);
  });

  it('serves 50 events by default', async () => {
    const rows = Array.from({ length: 55 }, (_, i) => ({
      id: `bulk${i}`,
      type: 'cta_sent',
      at: Date.parse(at(-100 - i)),
      leadId: 'lead_ada1',
      campaignId: 'cmp_q4',
    }));
    server.ctx.db.insert(activity).values(rows).run();
    try {
      const res = await recent({ type: 'cta_sent' });
      expect(ids(res)).toEqual(rows.slice(0, 50).map((r) => r.id));
      const rest = await recent({ type: 'cta_sent', cursor: res.body.nextCursor });
      expect(ids(rest)).toEqual(rows.slice(50).map((r) => r.id));
      expect(rest.body.nextCursor).toBeNull();
    } finally {
      server.ctx.db.delete(activity).where(eq(activity.type, 'cta_sent')).run();
    }
  });

  it('refuses cursors of another type, of no type, tampered, or of another list', async () => {
    const all = (await recent({ limit: 2 })).body.nextCursor;
    const replies = (await recent({ type: 'reply_received', limit: 1 })).body.nextCursor;
    expectValidation(await recent({ type: 'reply_received', cursor: all }), 'cursor');
    expectValidation(await recent({ cursor: replies }), 'cursor');
    expectValidation(await recent({ type: 'message_sent', cursor: replies }), 'cursor');
    const [body, sig] = all.split('.');
    expectValidation(await recent({ cursor: `${body}x.${sig}` }), 'cursor');
    const leadsCursor = (await readBoth(server, client, 'list_leads', { campaignId: 'cmp_q4', limit: 1 })).body.nextCursor;
    expect(leadsCursor).toBeNull();
    const campaignsCursor = (await readBoth(server, client, 'list_campaigns', { limit: 1 })).body.nextCursor;
    expectValidation(await recent({ cursor: campaignsCursor }), 'cursor');
  });

  it('refuses a cursor whose event is gone, or that points at a manual send', async () => {
    const first = await recent({ limit: 3 });
    const last = first.body.events[2].id;
    const row = server.ctx.db.select().from(activity).where(eq(activity.id, last)).get()!;
    server.ctx.db.delete(activity).where(eq(activity.id, last)).run();
    try {
      expectValidation(await recent({ limit: 3, cursor: first.body.nextCursor }), 'cursor');
    } finally {
      server.ctx.db.insert(activity).values(row).run();
    }
    const manual = server.ctx.db.select().from(activity).where(eq(activity.id, 'e09')).get()!;
    const forged = encodeCursor(getWorkspace(server.ctx)!.cursorSecret, 'activity|', [manual.at, manual.seq]);
    expectValidation(await recent({ cursor: forged }), 'cursor');
  });

  it('events recorded while paging do not repeat or hide the ones that were there', async () => {
    const first = await recent({ limit: 3 });
    const now = Date.parse(at(100));
    server.ctx.db.insert(activity).values({ id: 'e_new', type: 'reply_received', at: now, leadId: 'lead_ada1', campaignId: 'cmp_q4' }).run();
    server.ctx.db
      .insert(activity)
      .values({ id: 'e_tie', type: 'reply_received', at: Date.parse(at(4)), leadId: 'lead_ada1', campaignId: 'cmp_q4' })
      .run();
    try {
      const rest = await recent({ limit: 100, cursor: first.body.nextCursor });
      const seen = [...ids(first), ...ids(rest)];
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.filter((id) => LISTED.includes(id))).toEqual(LISTED);
    } finally {
      server.ctx.db.delete(activity).where(eq(activity.id, 'e_new')).run();
      server.ctx.db.delete(activity).where(eq(activity.id, 'e_tie')).run();
    }
  });
});

describe('messagePreview', () => {
  it.each([
    [null, null],
    ['', null],
    ['   ', null],
    ['  hi  ', 'hi'],
    ['x'.repeat(80), 'x'.repeat(80)],
    ['x'.repeat(81), `${'x'.repeat(79)}…`],
    // Never half an emoji, and never over 80 UTF-16 units with the ellipsis.
    [`${'x'.repeat(78)}😀😀`, `${'x'.repeat(78)}…`],
    [`${'x'.repeat(77)}😀😀`, `${'x'.repeat(77)}😀…`],
    [`${'x'.repeat(76)}😀😀`, `${'x'.repeat(76)}😀😀`],
    [`${'x'.repeat(79)}😀`, `${'x'.repeat(79)}…`],
    // Whitespace runs are one space, so the tail fits.
    [`${'x'.repeat(70)}          tail`, `${'x'.repeat(70)} tail`],
    [`${'x'.repeat(78)}   \n tail`, `${'x'.repeat(78)}…`],
  ])('%j → %j', (input, output) => {
    const result = messagePreview(input);
    expect(result).toBe(output);
    expect((result ?? '').length).toBeLessThanOrEqual(MESSAGE_PREVIEW_MAX);
  });
});

describe('activity query plans', () => {
  it('every page is an index search in (at, seq) order, with or without a type', () => {
    const ctx = testCtx();
    const secret = getWorkspace(ctx)!.cursorSecret;
    const rows = Array.from({ length: 500 }, (_, i) => ({
      id: `p${i}`,
      type: ACTIVITY_TYPES[i % ACTIVITY_TYPES.length]!,
      at: Math.floor(i / 5) * 1000,
      leadId: 'lead_ada1',
      campaignId: 'cmp_q4',
      manual: i % 11 === 0,
    }));
    ctx.db.insert(activity).values(rows).run();
    for (const type of [undefined, 'reply_received' as const]) {
      let next: string | null = null;
      const first = captureQueries(ctx.db, () => {
        next = listActivity(ctx, secret, { type, limit: 3 }).nextCursor;
      });
      const later = captureQueries(ctx.db, () => {
        listActivity(ctx, secret, { type, limit: 3, cursor: next! });
      });
      const lists = [...first, ...later].filter((c) => /order by/i.test(c.sql));
      expect(lists).toHaveLength(3);
      const index = type ? 'activity_type_at \\(manual=\\? AND type=\\?' : 'activity_at \\(manual=\\?';
      for (const q of lists) {
        const plan = queryPlan(ctx.db, q);
        expect(plan, plan.join('\n')).toHaveLength(1);
        expect(plan[0]).toMatch(new RegExp(`^SEARCH activity USING INDEX ${index}`));
      }
      const check = later.find((c) => /count\(\*\)/.test(c.sql))!;
      expect(queryPlan(ctx.db, check)).toEqual(['SEARCH activity USING INTEGER PRIMARY KEY (rowid=?)']);
    }
  });
});
