import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../src/core/auth/keys.js';
import { draftFor } from '../../src/core/drafts/prepare.js';
import { updateDrafts } from '../../src/core/drafts/update.js';
import { waitingReaders } from '../../src/core/live/journal.js';
import { campaignDraftsUri, changesUri, DRAFTS_URI } from '../../src/mcp/live.js';
import { noteFor, reviewWorkspace } from '../drafts/helpers.js';
import { stdioWorkspace } from './stdio-workspace.js';
import { RELAXED_LIMITS, startTestServer, TEST_KEY, type TestServer } from '../helpers.js';

/**
 * The changes resource (outreach://changes): a read that waits, from a cursor, for the next
 * change the key may see. What an MCP App view uses to refresh, since its host passes on
 * resource reads but no resource notifications.
 */

interface Answer {
  cursor: string;
  changes: { resource: string; campaignId?: string }[];
  reset: boolean;
  uris: string[];
}

/** What both SDKs' clients share for a read: the v1 client at 2025-11-25, the v2 client at 2026-07-28. */
interface Reader {
  readResource(params: { uri: string }, options?: { signal?: AbortSignal; timeout?: number }): Promise<{ contents: unknown[] }>;
  close(): Promise<void>;
}

const read = async (client: Reader, uri: string, signal?: AbortSignal): Promise<Answer> => {
  const result = await client.readResource({ uri }, { timeout: 60_000, ...(signal ? { signal } : {}) });
  return JSON.parse((result.contents[0] as { text: string }).text) as Answer;
};

describe('the changes resource over HTTP', () => {
  let server: TestServer;
  let lead = 0;
  beforeAll(async () => {
    server = await startTestServer({ workspace: reviewWorkspace(5), limits: RELAXED_LIMITS });
  });
  afterAll(() => server.close());

  const eras: Record<'2025-11-25' | '2026-07-28', (key?: string) => Promise<Reader>> = {
    '2025-11-25': async (key = TEST_KEY) => {
      const client = new ClientV1({ name: 'changes-v1', version: '1.0.0' });
      await client.connect(new HttpV1(new URL(`${server.url}/mcp`), { requestInit: { headers: { 'X-API-Key': key } } }));
      return client as unknown as Reader;
    },
    '2026-07-28': async (key = TEST_KEY) => {
      const client = new ClientV2({ name: 'changes-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await client.connect(new HttpV2(new URL(`${server.url}/mcp`), { requestInit: { headers: { 'X-API-Key': key } } }));
      expect(client.getProtocolEra()).toBe('modern');
      return client as unknown as Reader;
    },
  };

  /** A new draft of cmp_review, approved through REST, as a reviewer in the dashboard would. */
  const approveADraft = async () => {
    const id = draftFor(server.ctx, noteFor(`lead_r${lead++}`)).id;
    const r = await server.rest('/drafts/batch-update', { method: 'POST', body: JSON.stringify({ drafts: [{ id, status: 'approved' }] }) });
    expect(r.body.results[0].status).toBe('updated');
  };

  it('is listed as a resource template beside the campaign ones, with a campaignId that completes', async () => {
    const client = await server.mcp();
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.find((t) => t.name === 'changes')?.uriTemplate).toBe('outreach://changes{?campaignId,after,wait}');
    const done = await client.complete({
      ref: { type: 'ref/resource', uri: 'outreach://changes{?campaignId,after,wait}' },
      argument: { name: 'campaignId', value: 'cmp_r' },
    });
    expect(done.completion.values).toContain('cmp_review');
  });

  for (const [era, connect] of Object.entries(eras)) {
    describe(era, () => {
      it('answers a first read at once with a cursor, then a read after it as soon as a draft changes', async () => {
        const client = await connect();
        try {
          const first = await read(client, changesUri());
          expect(first).toMatchObject({ changes: [], reset: false, uris: [] });
          const waiting = read(client, changesUri({ after: first.cursor, wait: 25 }));
          await expect.poll(() => waitingReaders(server.ctx)).toBeGreaterThan(0);
          await approveADraft();
          const answer = await waiting;
          expect(answer.reset).toBe(false);
          expect(answer.changes).toContainEqual({ resource: 'drafts', campaignId: 'cmp_review' });
          expect(answer.uris).toEqual(expect.arrayContaining([campaignDraftsUri('cmp_review'), DRAFTS_URI]));
          expect(answer.cursor).not.toBe(first.cursor);
        } finally {
          await client.close();
        }
      });

      it('keeps a change made between two reads for the next one', async () => {
        const client = await connect();
        try {
          const first = await read(client, changesUri());
          await approveADraft();
          // The reader was busy elsewhere when the draft changed: its next read still hears of it.
          const answer = await read(client, changesUri({ after: first.cursor, wait: 25 }));
          expect(answer.changes).toContainEqual({ resource: 'drafts', campaignId: 'cmp_review' });
        } finally {
          await client.close();
        }
      });

      it('answers with no change after the wait it was given', async () => {
        const client = await connect();
        try {
          const first = await read(client, changesUri({ campaignId: 'cmp_q4' }));
          const answer = await read(client, changesUri({ campaignId: 'cmp_q4', after: first.cursor, wait: 1 }));
          expect(answer).toMatchObject({ changes: [], reset: false, uris: [] });
          // The new cursor goes on from there.
          expect(answer.cursor).toMatch(/^[a-z0-9]{8}\.\d+\.\d+$/);
        } finally {
          await client.close();
        }
      });

      it('says reset for a cursor it cannot follow, and refuses what is not a cursor or a wait', async () => {
        const client = await connect();
        try {
          expect(await read(client, changesUri({ after: 'zzzzzzzz.0.0' }))).toMatchObject({ reset: true, changes: [] });
          await expect(read(client, changesUri({ after: 'not a cursor' }))).rejects.toThrow(/after must be the cursor/);
          await expect(read(client, `${changesUri()}?wait=60`)).rejects.toThrow(/wait must be/);
          await expect(read(client, `${changesUri()}?since=1`)).rejects.toThrow(/not since/);
          await expect(read(client, changesUri({ campaignId: 'cmp_nope' }))).rejects.toThrow(/cmp_nope/);
        } finally {
          await client.close();
        }
      });

      it('tells a key held to one campaign of that campaign only', async () => {
        const { key } = createApiKey(server.ctx, 'test', `scoped ${era}`, { campaignIds: ['cmp_q4'] });
        const client = await connect(key);
        try {
          await expect(read(client, changesUri({ campaignId: 'cmp_review' }))).rejects.toThrow(/cmp_review/);
          const first = await read(client, changesUri());
          const waiting = read(client, changesUri({ after: first.cursor, wait: 25 }));
          await expect.poll(() => waitingReaders(server.ctx)).toBeGreaterThan(0);
          // A change of another campaign wakes nobody of this key ...
          await approveADraft();
          // ... this one's does (renaming cmp_q4).
          expect((await server.rest('/campaigns/cmp_q4', { method: 'PATCH', body: JSON.stringify({ name: `Q4 (${era})` }) })).status).toBe(200);
          const answer = await waiting;
          expect(answer.changes.length).toBeGreaterThan(0);
          for (const change of answer.changes) expect(change.campaignId).toBe('cmp_q4');
          expect(JSON.stringify(answer)).not.toContain('cmp_review');
        } finally {
          await client.close();
        }
      });

      it("ends a waiting read with the key's error as soon as the key is revoked", async () => {
        const { id, key } = createApiKey(server.ctx, 'test', `revoked ${era}`);
        const client = await connect(key);
        try {
          const first = await read(client, changesUri());
          const waiting = read(client, changesUri({ after: first.cursor, wait: 25 }));
          await expect.poll(() => waitingReaders(server.ctx)).toBeGreaterThan(0);
          // Nothing else changes: the revocation alone ends the wait, long before its 25 s.
          revokeApiKey(server.ctx, id);
          await expect(waiting).rejects.toThrow(/revoked/);
          await expect(read(client, changesUri())).rejects.toThrow();
        } finally {
          await client.close();
        }
      });

      it('stops waiting when the reader goes away', async () => {
        const client = await connect();
        try {
          const first = await read(client, changesUri());
          const gone = new AbortController();
          const waiting = read(client, changesUri({ after: first.cursor, wait: 25 }), gone.signal);
          await expect.poll(() => waitingReaders(server.ctx)).toBe(1);
          gone.abort();
          await expect(waiting).rejects.toThrow();
          await expect.poll(() => waitingReaders(server.ctx)).toBe(0);
        } finally {
          await client.close();
        }
      });
    });
  }
});

describe('the changes resource over stdio, changed by another process', () => {
  const { BIN, db, env, elsewhere } = stdioWorkspace('outreach-changes-');

  const clients: Record<string, (key: string) => Promise<Reader>> = {
    '2025-11-25 (v1 client)': async (key) => {
      const client = new ClientV1({ name: 'changes-stdio-v1', version: '1.0.0' });
      await client.connect(new StdioV1({ command: process.execPath, args: [BIN, 'mcp', '--db', db], env: { ...env, OUTREACH_API_KEY: key }, stderr: 'pipe' }));
      return client as unknown as Reader;
    },
    '2026-07-28 (v2 client)': async (key) => {
      const client = new ClientV2({ name: 'changes-stdio-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await client.connect(new StdioV2({ command: process.execPath, args: [BIN, 'mcp', '--db', db], env: { ...env, OUTREACH_API_KEY: key }, stderr: 'pipe' }));
      return client as unknown as Reader;
    },
  };

  let lead = 0;
  for (const [name, connect] of Object.entries(clients)) {
    it(`${name}: hears of another process's approval, and its wait ends when the key is revoked`, async () => {
      const { id, key } = elsewhere((ctx) => createApiKey(ctx, 'test', `stdio ${name}`));
      const client = await connect(key);
      try {
        const first = await read(client, changesUri());
        const waiting = read(client, changesUri({ after: first.cursor, wait: 25 }));
        elsewhere((ctx) => {
          const draft = draftFor(ctx, noteFor(`lead_r${lead++}`));
          expect(updateDrafts(ctx, [{ id: draft.id, status: 'approved' }]).results[0]?.status).toBe('updated');
        });
        // Another process's commit: the feed cannot say what it changed, so it says the workspace did.
        const answer = await waiting;
        expect(answer.changes).toContainEqual({ resource: 'workspace' });
        const next = read(client, changesUri({ after: answer.cursor, wait: 25 }));
        elsewhere((ctx) => revokeApiKey(ctx, id));
        await expect(next).rejects.toThrow(/revoked/);
      } finally {
        await client.close();
      }
    });
  }
});
