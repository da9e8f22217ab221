import { and, eq } from 'drizzle-orm';
import type { FakeClock } from '../../src/core/clock.js';
import type { Ctx } from '../../src/core/context.js';
import type { WorkspaceFileInput } from '../../src/core/seed/file.js';
import { activity, campaigns, leads, workspace } from '../../src/db/schema.js';
import { Engine, resolveEngineSettings, type EngineConfig, type EngineOptions } from '../../src/workers/outreach/index.js';
import type { NetworkProvider } from '../../src/core/network/provider.js';
import { testCtx, TEST_KEY } from '../helpers.js';

export const url = (slug: string) => `https://www.linkedin.com/in/${slug}`;
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export interface LeadSpec {
  slug: string;
  firstName?: string;
  accountId?: string;
  excluded?: boolean;
  stage?: string;
}

/** A workspace with one connected account, one agent (note + two messages) and one campaign. */
export function engineWorkspace(
  leadSpecs: (string | LeadSpec)[],
  opts: { status?: string; limits?: { connectionRequestLimit?: number; messageLimit?: number }; today?: Record<string, number>; extraAccounts?: string[] } = {},
): WorkspaceFileInput {
  const specs = leadSpecs.map((s) => (typeof s === 'string' ? { slug: s } : s));
  return {
    apiKeys: [{ key: TEST_KEY, name: 'ci' }],
    accounts: [
      { id: 'acc_a', name: 'A', status: 'connected', hasSalesNavigator: true, ...opts.limits, ...(opts.today ? { today: opts.today } : {}) },
      ...(opts.extraAccounts ?? []).map((id) => ({ id, status: 'connected' as const })),
    ],
    agents: [
      {
        id: 'tpl',
        accountId: 'acc_a',
        connectionNote: 'Hi {{firstName}}, glad to connect.',
        messages: [
          { text: 'Thanks for connecting, {{firstName}}!', delayHours: 1 },
          { text: 'Following up, {{firstName}}.', delayHours: 24 },
        ],
      },
    ],
    campaigns: [
      {
        id: 'cmp',
        name: 'Engine test',
        status: (opts.status ?? 'CAMPAIGN_IN_PROGRESS') as 'CAMPAIGN_IN_PROGRESS',
        assignedTemplateId: 'tpl',
        leads: specs.map((s, i) => ({
          id: `lead_${i + 1}`,
          networkUrl: url(s.slug),
          firstName: s.firstName ?? `Person${i + 1}`,
          lastName: 'Test',
          companyName: 'Acme',
          ...(s.accountId ? { accountId: s.accountId } : {}),
          ...(s.excluded ? { excluded: true } : {}),
          ...(s.stage ? { stage: s.stage as 'new' } : {}),
        })),
      },
    ],
  };
}

export interface Harness {
  ctx: Ctx & { clock: FakeClock };
  engine: Engine;
  tick: () => ReturnType<Engine['tick']>;
  /** Advances the clock by `step` and ticks, until `done` or `maxSteps`. */
  runUntil: (done: () => boolean, step?: number, maxSteps?: number) => Promise<number>;
  lead: (id: string) => typeof leads.$inferSelect;
  campaign: (id?: string) => typeof campaigns.$inferSelect;
  events: (type?: string) => (typeof activity.$inferSelect)[];
  lifetime: () => typeof workspace.$inferSelect;
}

export function engineSettings(config: EngineConfig = {}) {
  // Always-on hours: tests about hours, rhythm or caps set their own.
  return resolveEngineSettings({ spacingSeconds: { min: 60, max: 60 }, workingHours: null, rhythmJitterMinutes: 0, ...config });
}

export function harness(
  ws: WorkspaceFileInput,
  opts: { config?: EngineConfig; engine?: EngineOptions; network?: (ctx: Ctx) => NetworkProvider; clock?: FakeClock } = {},
): Harness {
  const ctx = testCtx({ workspace: ws, ...(opts.clock ? { clock: opts.clock } : {}) });
  if (opts.network) ctx.network = opts.network(ctx);
  const engine = new Engine(ctx, { settings: engineSettings(opts.config), random: () => 0, holder: 'engine-test', ...opts.engine });
  const h: Harness = {
    ctx,
    engine,
    tick: () => engine.tick(),
    runUntil: async (done, step = MINUTE, maxSteps = 10_000) => {
      for (let i = 0; i < maxSteps; i++) {
        await engine.tick();
        if (done()) return i;
        ctx.clock.advance(step);
      }
      throw new Error('runUntil: condition never met');
    },
    lead: (id) => ctx.db.select().from(leads).where(eq(leads.id, id)).get()!,
    campaign: (id = 'cmp') => ctx.db.select().from(campaigns).where(eq(campaigns.id, id)).get()!,
    events: (type) =>
      ctx.db
        .select()
        .from(activity)
        .where(type ? and(eq(activity.type, type)) : undefined)
        .all(),
    lifetime: () => ctx.db.select().from(workspace).get()!,
  };
  return h;
}

/** A provider that records every call and can hold sends until released. */
export class RecordingNetwork implements NetworkProvider {
  /** Each call, with the account it was made from. */
  readonly calls: { op: string; networkUrl: string | undefined; text: string | null; accountId: string }[] = [];
  private gate: Promise<void> | null = null;
  private open: (() => void) | null = null;
  /** Resolves when a held call arrives. */
  arrived: Promise<void> = Promise.resolve();
  private signal: (() => void) | null = null;

  constructor(private readonly inner: NetworkProvider) {}

  /** Holds the next calls until `release()`. */
  hold(): void {
    this.gate = new Promise((r) => (this.open = r));
    this.arrived = new Promise((r) => (this.signal = r));
  }
  release(): void {
    this.open?.();
    this.gate = null;
  }

  private async pass(op: string, networkUrl: string | undefined, text: string | null, accountId: string): Promise<void> {
    this.calls.push({ op, networkUrl, text, accountId });
    this.signal?.();
    if (this.gate) await this.gate;
  }

  lookupProfile = ((input: Parameters<NetworkProvider['lookupProfile']>[0]) => this.inner.lookupProfile(input)) as NetworkProvider['lookupProfile'];
  searchPeople: NetworkProvider['searchPeople'] = (input) => this.inner.searchPeople(input);
  lookalikeCandidates: NetworkProvider['lookalikeCandidates'] = (input) => this.inner.lookalikeCandidates(input);
  drainInbound: NetworkProvider['drainInbound'] = (now) => this.inner.drainInbound(now);
  accountHealth: NetworkProvider['accountHealth'] = (a) => this.inner.accountHealth(a);
  sendConnectionRequest: NetworkProvider['sendConnectionRequest'] = async (input) => {
    await this.pass('connect', input.networkUrl, input.note, input.account.id);
    return this.inner.sendConnectionRequest(input);
  };
  sendMessage: NetworkProvider['sendMessage'] = async (input) => {
    await this.pass('message', input.recipient.networkUrl, input.text, input.account.id);
    return this.inner.sendMessage(input);
  };
  withdrawInvitation: NetworkProvider['withdrawInvitation'] = async (input) => {
    await this.pass('withdraw', input.networkUrl, null, input.account.id);
    return this.inner.withdrawInvitation(input);
  };
  visitProfile: NetworkProvider['visitProfile'] = async (input) => {
    await this.pass('visit', input.networkUrl, null, input.account.id);
    return this.inner.visitProfile(input);
  };
  likeLatestPost: NetworkProvider['likeLatestPost'] = async (input) => {
    await this.pass('like_post', input.networkUrl, null, input.account.id);
    return this.inner.likeLatestPost(input);
  };
  sendInMail: NetworkProvider['sendInMail'] = async (input) => {
    await this.pass('inmail', input.recipient.networkUrl, input.text, input.account.id);
    return this.inner.sendInMail(input);
  };
}
