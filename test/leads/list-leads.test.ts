import type { Client } from '@modelcontextprotocol/client';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leads } from '../../src/db/schema.js';
import { encodeCursor } from '../../src/core/cursor.js';
import { getWorkspace } from '../../src/core/workspace/get.js';
import { startTestServer, type TestServer, RELAXED_LIMITS } from '../helpers.js';
import { expectValidation, readBoth } from '../transports.js';
import { ALLOWED_QUERIES, REJECTED_QUERIES, expectedIds, listDataset, workspaceWith, type ModelQuery } from './data.js';

const DATA = listDataset('l', 30);
const OTHER = listDataset('o', 6);

let server: TestServer;
let client: Client;

beforeAll(async () => {
  server = await startTestServer({ workspace: workspaceWith({ cmp_list: DATA, cmp_other: OTHER, cmp_sixty: listDataset('s', 60) }), limits: RELAXED_LIMITS });
  client = await server.mcp();
});
afterAll(() => server.close());

const list = (args: Record<string, unknown>) => readBoth(server, client, 'list_leads', { campaignId: 'cmp_list', ...args });

/** Follows nextCursor to the end, over both transports, and returns every id in order. */
async function walk(args: Record<string, unknown>): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const res = await list({ ...args, ...(cursor ? { cursor } : {}) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    ids.push(...res.body.leads.map((l: { id: string }) => l.id));
    if (res.body.nextCursor === null) {
      return ids;
    }
    expect(res.body.leads).toHaveLength(args.limit as number);
    cursor = res.body.nextCursor;
  }
  throw new Error('no last page after 100 pages');
}

describe('list_leads: filters and sorts', () => {
  it('defaults to createdAt, newest first, limit 50, with excluded leads included', async () => {
    const res = await list({});
    expect(res.status).toBe(200);
    expect(res.body.leads.map((l: { id: string }) => l.id)).toEqual(expectedIds(DATA, {}));
    expect(res.body.leads.some((l: { excluded: boolean }) => l.excluded)).toBe(true);
    expect(res.body.nextCursor).toBeNull();
  });

  it.each(ALLOWED_QUERIES.map((q) => [JSON.stringify(q), q] as const))('%s pages through exactly the matching leads, in order', async (_name, q) => {
    const expected = expectedIds(DATA, q);
    expect(expected.length).toBeGreaterThan(1);
    expect(await walk({ ...q, limit: 2 })).toEqual(expected);
    expect(await walk({ ...q, limit: 100 })).toEqual(expected);
  });

  it('omits leads that lack the active sort field', async () => {
    const tagged = DATA.filter((l) => l.tag === 'Interested');
    const res = await list({ tag: 'Interested', sort: 'taggedAt' });
    const ids = res.body.leads.map((l: { id: string }) => l.id);
    expect(ids.length).toBe(tagged.filter((l) => l.taggedAt !== null).length);
    expect(ids.length).toBeLessThan(tagged.length);
    for (const lead of res.body.leads) expect(lead.taggedAt).not.toBeNull();
  });

  it.each(REJECTED_QUERIES.map((q) => [JSON.stringify(q), q] as const))('%s is a 400 naming sort', async (_name, q) => {
    expectValidation(await list({ ...q }), 'sort');
  });

  it.each([
    [{ tag: 'Interested', replied: true }, ['tag', 'replied']],
    [{ replied: false, needsReply: true }, ['replied', 'needsReply']],
    [{ needsReply: false, excluded: true }, ['needsReply', 'excluded']],
    [{ tag: 'Interested', replied: true, needsReply: true, excluded: true }, ['tag', 'replied', 'needsReply', 'excluded']],
  ] as const)('combining filters %j is a 400 naming them', async (args, fields) => {
    expectValidation(await list(args), ...fields);
  });

  it.each([
    ['excluded=false', { excluded: false }, 'excluded'],
    ['excluded=yes', { excluded: 'yes' }, 'excluded'],
    ['replied=maybe', { replied: 'maybe' }, 'replied'],
    ['needsReply=1', { needsReply: '1' }, 'needsReply'],
    ['an unknown tag', { tag: 'Hot' }, 'tag'],
    ['an unknown sort', { sort: 'name' }, 'sort'],
    ['sort=updatedAt', { sort: 'updatedAt' }, 'sort'],
    ['limit=0', { limit: 0 }, 'limit'],
    ['limit=101', { limit: 101 }, 'limit'],
    ['limit=2.5', { limit: 2.5 }, 'limit'],
    ['an empty cursor', { cursor: '' }, 'cursor'],
  ])('%s is a 400 naming the parameter', async (_name, args, field) => {
    expectValidation(await list(args), field);
  });

  it('serves 50 leads by default', async () => {
    const res = await readBoth(server, client, 'list_leads', { campaignId: 'cmp_sixty' });
    expect(res.body.leads).toHaveLength(50);
    expect(res.body.nextCursor).toEqual(expect.any(String));
    const rest = await readBoth(server, client, 'list_leads', { campaignId: 'cmp_sixty', cursor: res.body.nextCursor });
    expect(rest.body.leads).toHaveLength(10);
    expect(rest.body.nextCursor).toBeNull();
  });

  it('takes limit 1 and 100', async () => {
    expect((await list({ limit: 1 })).body.leads).toHaveLength(1);
    expect((await list({ limit: 100 })).body.leads).toHaveLength(30);
  });

  it('an unknown campaign is 404 not_found; a malformed id is 400 naming campaignId', async () => {
    const res = await readBoth(server, client, 'list_leads', { campaignId: 'cmp_nope' });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expectValidation(await readBoth(server, client, 'list_leads', { campaignId: 'bad.id' }), 'campaignId');
  });

  it('a campaign without leads is an empty page with nextCursor null', async () => {
    const res = await readBoth(server, client, 'list_leads', { campaignId: 'cmp_running' });
    expect(res.body).toEqual({ leads: [], nextCursor: null });
  });

  it('a last page that is exactly full has nextCursor null', async () => {
    const first = await list({ limit: 15 });
    expect(first.body.nextCursor).not.toBeNull();
    const second = await list({ limit: 15, cursor: first.body.nextCursor });
    expect(second.body.leads).toHaveLength(15);
    expect(second.body.nextCursor).toBeNull();
  });

  it('a cursor may be followed with another limit', async () => {
    const first = await list({ limit: 4 });
    const rest = await list({ limit: 100, cursor: first.body.nextCursor });
    const ids = [...first.body.leads, ...rest.body.leads].map((l: { id: string }) => l.id);
    expect(ids).toEqual(expectedIds(DATA, {}));
  });
});

describe('list_leads: bad cursors are 400 validation_error naming cursor, never page one', () => {
  const firstCursor = async (args: ModelQuery & Record<string, unknown>, campaignId = 'cmp_list') => {
    const res = await readBoth(server, client, 'list_leads', { campaignId, limit: 3, ...args });
    expect(res.body.nextCursor).toEqual(expect.any(String));
    return res.body.nextCursor as string;
  };
  const secret = () => getWorkspace(server.ctx)!.cursorSecret;
  const lastSeq = (cursor: string): number => JSON.parse(Buffer.from(cursor.split('.')[0]!, 'base64url').toString())[1];

  it.each([
    ['garbage', 'not-a-cursor'],
    ['a dot alone', '.'],
    ['an unsigned body', `${Buffer.from('[1,2]').toString('base64url')}.`],
    ['a cursor signed with another secret', encodeCursor('another secret', 'leads|cmp_list||createdAt', [0, 1])],
    ['an over-long string', 'x'.repeat(513)],
  ])('%s', async (_name, cursor) => {
    expectValidation(await list({ cursor }), 'cursor');
  });

  it('a tampered body or signature', async () => {
    const cursor = await firstCursor({});
    const [body, sig] = cursor.split('.') as [string, string];
    const key = JSON.parse(Buffer.from(body, 'base64url').toString());
    const forged = `${Buffer.from(JSON.stringify([key[0], key[1] - 1])).toString('base64url')}.${sig}`;
    expectValidation(await list({ cursor: forged }), 'cursor');
    const flipped = `${body}.${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`;
    expectValidation(await list({ cursor: flipped }), 'cursor');
  });

  it('a validly signed key of the wrong shape', async () => {
    for (const key of [[], [1], ['x', 1], [1, 'x'], [1, 2, 3], [null, 1], [1.5, 2]]) {
      expectValidation(await list({ cursor: encodeCursor(secret(), 'leads|cmp_list||createdAt', key) }), 'cursor');
    }
  });

  it('a cursor of another campaign', async () => {
    const cursor = await firstCursor({}, 'cmp_other');
    expectValidation(await list({ cursor }), 'cursor');
  });

  it('a cursor of another filter, filter value or sort', async () => {
    const plain = await firstCursor({});
    const interested = await firstCursor({ tag: 'Interested' });
    expectValidation(await list({ tag: 'Interested', cursor: plain }), 'cursor');
    expectValidation(await list({ tag: 'Not interested', cursor: interested }), 'cursor');
    expectValidation(await list({ tag: 'Interested', sort: 'taggedAt', cursor: interested }), 'cursor');
    expectValidation(await list({ cursor: interested }), 'cursor');
    expectValidation(await list({ sort: 'lastInboundMessageAt', cursor: plain }), 'cursor');
    const repliedTrue = await firstCursor({ replied: true });
    expectValidation(await list({ replied: false, cursor: repliedTrue }), 'cursor');
    expectValidation(await list({ needsReply: true, cursor: repliedTrue }), 'cursor');
  });

  it('a cursor from another list (campaigns)', async () => {
    const campaigns = await readBoth(server, client, 'list_campaigns', { limit: 1 });
    expectValidation(await list({ cursor: campaigns.body.nextCursor }), 'cursor');
  });

  it('a cursor whose lead was deleted', async () => {
    const cursor = await firstCursor({ replied: false });
    const seq = lastSeq(cursor);
    const row = server.ctx.db.select().from(leads).where(eq(leads.seq, seq)).get()!;
    server.ctx.db.delete(leads).where(eq(leads.seq, seq)).run();
    try {
      expectValidation(await list({ replied: false, limit: 3, cursor }), 'cursor');
    } finally {
      server.ctx.db.insert(leads).values(row).run();
    }
    expect((await list({ replied: false, limit: 3, cursor })).status).toBe(200);
  });

  it('a cursor whose lead no longer matches the filter', async () => {
    const cursor = await firstCursor({ tag: 'Interested' });
    const seq = lastSeq(cursor);
    server.ctx.db.update(leads).set({ tag: 'Meeting request' }).where(eq(leads.seq, seq)).run();
    try {
      expectValidation(await list({ tag: 'Interested', limit: 3, cursor }), 'cursor');
    } finally {
      server.ctx.db.update(leads).set({ tag: 'Interested' }).where(eq(leads.seq, seq)).run();
    }
  });

  it('a cursor whose lead lost the sort field', async () => {
    const cursor = await firstCursor({ replied: true, sort: 'repliedAt' });
    const seq = lastSeq(cursor);
    const before = server.ctx.db.select({ repliedAt: leads.repliedAt }).from(leads).where(eq(leads.seq, seq)).get()!;
    server.ctx.db.update(leads).set({ repliedAt: null }).where(eq(leads.seq, seq)).run();
    try {
      expectValidation(await list({ replied: true, sort: 'repliedAt', limit: 3, cursor }), 'cursor');
    } finally {
      server.ctx.db.update(leads).set({ repliedAt: before.repliedAt }).where(eq(leads.seq, seq)).run();
    }
  });

  it('a cursor whose lead moved in the sort order keeps its place', async () => {
    const first = await list({ replied: true, sort: 'lastInboundMessageAt', limit: 3 });
    const seq = lastSeq(first.body.nextCursor);
    const before = server.ctx.db.select({ at: leads.lastInboundMessageAt }).from(leads).where(eq(leads.seq, seq)).get()!;
    server.ctx.db
      .update(leads)
      .set({ lastInboundMessageAt: Date.parse('2030-01-01T00:00:00Z') })
      .where(eq(leads.seq, seq))
      .run();
    try {
      const rest = await list({ replied: true, sort: 'lastInboundMessageAt', limit: 100, cursor: first.body.nextCursor });
      const ids = [...first.body.leads, ...rest.body.leads].map((l: { id: string }) => l.id);
      expect(ids).toEqual(expectedIds(DATA, { replied: true, sort: 'lastInboundMessageAt' }));
    } finally {
      server.ctx.db.update(leads).set({ lastInboundMessageAt: before.at }).where(eq(leads.seq, seq)).run();
    }
  });
});
