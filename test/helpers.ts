import { readFileSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { FakeClock } from '../src/core/clock.js';
import { createLimiter, RATE_CLASS_NAMES, resolveLimits, type LimitsConfig } from '../src/core/ratelimit/index.js';
import type { Ctx, Environment } from '../src/core/context.js';
import { WorkspaceFile, type WorkspaceFileInput } from '../src/core/seed/file.js';
import { loadWorkspace } from '../src/core/seed/load.js';
import { openDatabase } from '../src/db/connection.js';
import { asCampaignStateWriter } from '../src/db/campaign-writer.js';
import { campaigns } from '../src/db/schema.js';
import { silentLogger } from '../src/log.js';
import { SqliteSimInboxStore } from '../src/core/network/sim-inbox-store.js';
import { SimulatedNetwork } from '../src/network/sim/index.js';
import { Mail } from '../src/network/mail/index.js';
import { SqliteSimMailStore } from '../src/core/network/sim-mail-store.js';
import { startServer, type RunningServer } from '../src/server.js';
import type { Settings } from '../src/config.js';

export const FIXTURE_PATH = new URL('./fixtures/workspace.json', import.meta.url);
export const TEST_KEY = 'sk_test_fixture_key_000000000000000001';
export const LIVE_KEY = 'sk_live_fixture_key_000000000000000002';

/**
 * Limits no test meets by accident: for suites that make many calls on one server. The
 * rate-limit tests use the spec's defaults (the testCtx default) or set their own.
 */
export const RELAXED_LIMITS: LimitsConfig = {
  globalPerMinute: 1_000_000,
  perMinute: Object.fromEntries(RATE_CLASS_NAMES.map((c) => [c, 1_000_000])),
  accountSpacingSeconds: { profile_lookup: 0, people_search: 0 },
  daily: { profileLookups: { classic: 1_000_000, salesNavigator: 1_000_000 }, searchResults: { classic: 1_000_000, salesNavigator: 1_000_000 } },
  authFailuresPerMinute: 1_000_000,
};

/** A fresh copy of the shared fixture workspace, to modify per test. */
export const fixture = (): WorkspaceFileInput => JSON.parse(readFileSync(FIXTURE_PATH, 'utf8')) as WorkspaceFileInput;

export interface TestCtxOptions {
  env?: Environment;
  clock?: FakeClock;
  /** The workspace to load; omit for the fixture, null for an empty database. */
  workspace?: WorkspaceFileInput | null;
  /** Limits over the spec's defaults, as the `limits` section of a config file. */
  limits?: LimitsConfig;
  /** Run the outreach engine in a test server (default false, so tests own every lead change). */
  engine?: boolean;
  /** Run the Lookalike worker in a test server (default false, for the same reason). */
  lookalike?: boolean;
  /** The built dashboard a test server serves at /app (default: dist/ui/dashboard). */
  uiDir?: string;
}

/**
 * An in-memory database on a fake clock, seeded with the fixture by default. The fake clock is
 * both the wall and the simulated clock; the network is the simulator with a SQLite inbox.
 */
export function testCtx(opts: TestCtxOptions = {}): Ctx & { clock: FakeClock } {
  const clock = opts.clock ?? new FakeClock();
  const db = openDatabase(':memory:');
  const limits = createLimiter(clock, resolveLimits(opts.limits));
  const network = new SimulatedNetwork({ clock, inbox: new SqliteSimInboxStore(db, clock) });
  const mail = new Mail({ env: process.env, sim: { store: new SqliteSimMailStore(db), clock } });
  const ctx = { db, clock, log: silentLogger(), env: opts.env ?? 'development', limits, simClock: clock, network, mail };
  if (opts.workspace !== null) loadWorkspace(ctx, WorkspaceFile.parse(opts.workspace ?? fixture()), { reset: false });
  return ctx;
}

export interface TestServer extends RunningServer {
  ctx: Ctx & { clock: FakeClock };
  rest: (path: string, init?: RequestInit & { key?: string | null }) => Promise<{ status: number; headers: Headers; body: any }>;
  /** An MCP client on /mcp; `query` (e.g. `toolsets=manage`) goes on the URL. */
  mcp: (key?: string, query?: string) => Promise<Client>;
}

/** The real HTTP server on an ephemeral loopback port, over an in-memory seeded database. */
export async function startTestServer(opts: TestCtxOptions = {}): Promise<TestServer> {
  const ctx = testCtx(opts);
  const settings: Settings = { host: '127.0.0.1', port: 0, dbPath: ':memory:', env: ctx.env, simSpeed: 1, config: opts.limits ? { limits: opts.limits } : {} };
  const server = await startServer(settings, ctx.log, ctx, { engine: opts.engine ?? false, lookalike: opts.lookalike ?? false, uiDir: opts.uiDir });
  const clients: Client[] = [];
  return {
    ...server,
    ctx,
    close: async () => {
      await Promise.all(clients.map((c) => c.close()));
      await server.close();
    },
    rest: async (path, init = {}) => {
      const { key = TEST_KEY, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (key !== null) headers.set('X-API-Key', key);
      if (rest.body !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
      const res = await fetch(`${server.url}/public/v1${path}`, { ...rest, headers });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // non-JSON bodies stay text
      }
      return { status: res.status, headers: res.headers, body };
    },
    mcp: async (key = TEST_KEY, query?: string) => {
      const client = new Client({ name: 'test-client', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${server.url}/mcp${query ? `?${query}` : ''}`), { requestInit: { headers: { 'X-API-Key': key } } }),
      );
      clients.push(client);
      return client;
    },
  };
}

/** The JSON body of a tool result: structuredContent on success, the error body on failure. */
export function toolBody(result: CallToolResult): any {
  const first = result.content[0];
  const text = first && first.type === 'text' ? first.text : '';
  const parsed = JSON.parse(text) as unknown;
  if (!result.isError) {
    // A success carries the same JSON twice: as structuredContent and as text.
    if (JSON.stringify(result.structuredContent) !== JSON.stringify(parsed)) throw new Error('structuredContent and text differ');
  }
  return parsed;
}

export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { isError: result.isError === true, body: toolBody(result) };
}

/**
 * Test setup only: writes a campaign's state columns directly, for a state no verb reaches in
 * one step (a FAILED campaign, a running one after a pause). Everything in src/ goes through
 * the state machine; SQLite refuses these writes from anywhere else (see campaign-writer.ts).
 */
export function setCampaignState(
  ctx: Pick<Ctx, 'db'>,
  campaignId: string,
  set: Partial<Pick<typeof campaigns.$inferInsert, 'status' | 'importing' | 'importingHolder' | 'importingHost' | 'importingPid' | 'importingUntil'>>,
): void {
  asCampaignStateWriter(ctx.db.$client, () => ctx.db.update(campaigns).set(set).where(eq(campaigns.id, campaignId)).run());
}
