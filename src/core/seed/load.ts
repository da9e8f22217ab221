import { isEmptyScope } from '../auth/scope.js';
import { randomBytes } from 'node:crypto';
import { accountToday } from '../accounts/today.js';
import { utcDay } from '../clock.js';
import { insertMailbox } from '../mailboxes/store.js';
import { transaction } from '../../db/tx.js';
import type { Ctx } from '../context.js';
import { newSortableId } from '../ids.js';
import { normalizeProfileUrl } from '../leads/url.js';
import { restoreCampaign } from '../campaigns/state-machine.js';
import { forgetAllDrafts } from '../drafts/store.js';
import { clean, composeFullName } from '../text.js';
import { insertApiKey } from '../auth/keys.js';
import { ApiError } from '../errors.js';
import { addEndpoint } from '../webhooks/endpoints.js';
import { stepColumns } from '../agents/agents.js';
import { buildSteps, givenStepIds, type StepInput } from '../agents/steps.js';
import { WORKSPACE_ID, getWorkspace } from '../workspace/get.js';
import { emptyStateTables, insertWorkspaceRow } from '../workspace/store.js';
import { WorkspaceSection, type WorkspaceContent } from './file.js';
import {
  insertBalanceRow,
  insertLedgerRow,
  insertSeededAccount,
  insertSeededAccountDay,
  insertSeededActivity,
  insertSeededAgent,
  insertSeededExclusion,
  insertSeededLead,
} from './store.js';

/** A workspace file that parsed but does not hold together; `path` names the offending field. */
export class SeedError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
  }
}

const ms = (timestamp: string | null | undefined): number | null => (timestamp ? Date.parse(timestamp) : null);

/**
 * Loads a parsed workspace file in one transaction: either all of it lands or nothing does.
 * Refuses a database that already holds a workspace unless `reset` is set.
 */
export function loadWorkspace(ctx: Ctx, file: WorkspaceContent, opts: { reset: boolean }): void {
  const now = ctx.clock.now();
  const db = ctx.db;
  transaction(db, () => {
    if (getWorkspace(ctx)) {
      if (!opts.reset) throw new SeedError('--reset', 'the database already holds a workspace; pass --reset to replace it');
    }
    if (opts.reset) {
      // Drafts have one writer, which SQLite holds every other module to (src/db/drafts-writer.ts).
      forgetAllDrafts(ctx);
      emptyStateTables(ctx, ['drafts']);
    }

    const ws = file.workspace ?? WorkspaceSection.parse({});
    const lifetime = { replies: 0, sent: 0, accepted: 0, messages: 0 };
    for (const c of file.campaigns) {
      lifetime.replies += c.stats?.repliesReceived ?? 0;
      lifetime.sent += c.stats?.connectionRequestsSent ?? 0;
      lifetime.accepted += c.stats?.connectionRequestsAccepted ?? 0;
      lifetime.messages += c.stats?.messagesSent ?? 0;
    }
    insertWorkspaceRow(ctx, {
      id: WORKSPACE_ID,
      ...ws,
      cursorSecret: randomBytes(32).toString('base64url'),
      webhookSecret: file.webhooks?.secret ?? null,
      repliesReceived: lifetime.replies,
      connectionRequestsSent: lifetime.sent,
      connectionRequestsAccepted: lifetime.accepted,
      messagesSent: lifetime.messages,
      createdAt: now,
    });

    const credits = file.credits ?? { credits: 0, topUpCredits: 0, lookalikeCredits: 0, lookalikeTopUpCredits: 0 };
    insertBalanceRow(ctx, { id: 1, ...credits });
    const buckets = [
      ['credits', credits.credits],
      ['top_up_credits', credits.topUpCredits],
      ['lookalike_credits', credits.lookalikeCredits],
      ['lookalike_top_up_credits', credits.lookalikeTopUpCredits],
    ] as const;
    for (const [bucket, delta] of buckets) {
      if (delta !== 0) insertLedgerRow(ctx, { at: now, bucket, delta, reason: 'seed', ref: null });
    }

    const seenKeys = new Set<string>();
    file.apiKeys.forEach((k, i) => {
      if (seenKeys.has(k.key)) throw new SeedError(`apiKeys[${i}].key`, 'duplicate key');
      seenKeys.add(k.key);
      insertApiKey(ctx, k.key, k.name, k.scope && !isEmptyScope(k.scope) ? k.scope : null);
    });

    const mailboxIds = new Set<string>();
    file.mailboxes.forEach((m, i) => {
      if (mailboxIds.has(m.id)) throw new SeedError(`mailboxes[${i}].id`, `duplicate mailbox id "${m.id}"`);
      mailboxIds.add(m.id);
      insertMailbox(ctx, {
        id: m.id,
        name: m.name ?? m.id,
        address: m.address,
        fromName: m.fromName ?? null,
        kind: m.smtp ? 'smtp' : 'sim',
        ...(m.smtp
          ? {
              smtpHost: m.smtp.host,
              smtpPort: m.smtp.port,
              smtpSecure: m.smtp.secure ?? m.smtp.port === 465,
              smtpUser: m.smtp.user ?? m.address,
              smtpPasswordEnv: m.smtp.passwordEnv,
            }
          : {}),
        ...(m.imap
          ? {
              imapHost: m.imap.host,
              imapPort: m.imap.port,
              imapSecure: m.imap.secure ?? m.imap.port === 993,
              imapUser: m.imap.user ?? m.address,
              imapPasswordEnv: m.imap.passwordEnv,
            }
          : {}),
        dailyLimit: m.dailyLimit,
        warmUpStartedAt: m.warmUp ? ctx.simClock.now() : null,
        timeZone: m.timeZone ?? null,
        workingHours: m.workingHours === undefined ? null : JSON.stringify(m.workingHours),
        spacingSeconds: m.spacingSeconds,
        status: m.status,
        createdAt: now,
        updatedAt: now,
      });
    });

    const accountIds = new Set<string>();
    const today = accountToday(ctx);
    const quotaDay = utcDay(now);
    file.accounts.forEach((a, i) => {
      if (accountIds.has(a.id)) throw new SeedError(`accounts[${i}].id`, `duplicate account id "${a.id}"`);
      accountIds.add(a.id);
      insertSeededAccount(ctx, {
        id: a.id,
        name: a.name ?? a.id,
        status: a.status,
        active: a.active,
        hasSalesNavigator: a.hasSalesNavigator,
        connectionRequestLimit: a.connectionRequestLimit,
        messageLimit: a.messageLimit,
        profileVisitLimit: a.profileVisitLimit,
        postReactionLimit: a.postReactionLimit,
        createdAt: now,
        weeklyConnectionRequestLimit: a.weeklyConnectionRequestLimit ?? null,
        // The engine's days are simulated; a warm-up starts on the simulated today.
        warmUpStartedAt: a.warmUp ? ctx.simClock.now() : null,
        timeZone: a.timeZone ?? null,
        workingHours: a.workingHours === undefined ? null : JSON.stringify(a.workingHours),
      });
      if (a.today) {
        // The engine's counters belong to the engine's day; the daily network quotas (lookups,
        // search results) to the real UTC day, as they are checked. The same day at speed 1.
        const { profileLookups, searchResults, ...engineCounts } = a.today;
        if (quotaDay === today) insertSeededAccountDay(ctx, { accountId: a.id, day: today, ...a.today });
        else {
          insertSeededAccountDay(ctx, { accountId: a.id, day: today, ...engineCounts });
          insertSeededAccountDay(ctx, { accountId: a.id, day: quotaDay, profileLookups, searchResults });
        }
      }
    });

    const agentIds = new Set<string>();
    file.agents.forEach((g, i) => {
      if (agentIds.has(g.id)) throw new SeedError(`agents[${i}].id`, `duplicate agent id "${g.id}"`);
      if (g.accountId && !accountIds.has(g.accountId)) {
        throw new SeedError(`agents[${i}].accountId`, `no account "${g.accountId}" in accounts`);
      }
      agentIds.add(g.id);
      if (g.steps !== undefined && (g.connectionNote !== undefined || g.messages !== undefined)) {
        throw new SeedError(`agents[${i}].steps`, 'give either steps or connectionNote and messages, not both');
      }
      const sequence =
        g.steps === undefined
          ? { connectionNote: g.connectionNote ?? null, messages: JSON.stringify(g.messages ?? []), steps: null }
          : seededSteps(g.steps, `agents[${i}]`);
      insertSeededAgent(ctx, { id: g.id, name: g.name ?? g.id, accountId: g.accountId ?? null, ...sequence, createdAt: now });
    });

    const campaignIds = new Set<string>();
    const leadIds = new Map<string, { name: string | null; company: string | null }>();
    file.campaigns.forEach((c, ci) => {
      const at = `campaigns[${ci}]`;
      if (campaignIds.has(c.id)) throw new SeedError(`${at}.id`, `duplicate campaign id "${c.id}"`);
      if (c.assignedTemplateId && !agentIds.has(c.assignedTemplateId)) {
        throw new SeedError(`${at}.assignedTemplateId`, `no agent "${c.assignedTemplateId}" in agents`);
      }
      c.senderAccountIds.forEach((id, si) => {
        if (!accountIds.has(id)) throw new SeedError(`${at}.senderAccountIds[${si}]`, `no account "${id}" in accounts`);
      });
      campaignIds.add(c.id);
      restoreCampaign(ctx, {
        id: c.id,
        name: c.name ?? c.id,
        status: c.status,
        assignedTemplateId: c.assignedTemplateId,
        importing: c.importing,
        approval: c.approval,
        // A repeated sender counts once, in its first place, as update_campaign stores it.
        senderAccountIds: JSON.stringify([...new Set(c.senderAccountIds)]),
        totalLeads: c.leads.length,
        connectionRequestsSent: c.stats?.connectionRequestsSent ?? 0,
        connectionRequestsAccepted: c.stats?.connectionRequestsAccepted ?? 0,
        messagesSent: c.stats?.messagesSent ?? 0,
        repliesReceived: c.stats?.repliesReceived ?? 0,
        createdAt: ms(c.createdAt) ?? now,
        updatedAt: ms(c.updatedAt) ?? now,
      });

      const urls = new Set<string>();
      c.leads.forEach((l, li) => {
        const lat = `${at}.leads[${li}]`;
        const id = l.id ?? newSortableId('lead', now);
        if (leadIds.has(id)) throw new SeedError(`${lat}.id`, `duplicate lead id "${id}"`);
        const url = l.networkUrl ? normalizeProfileUrl(l.networkUrl) : null;
        if (url) {
          if (urls.has(url)) throw new SeedError(`${lat}.networkUrl`, `duplicate profile URL in campaign "${c.id}"`);
          urls.add(url);
        }
        if (l.accountId && !accountIds.has(l.accountId)) {
          throw new SeedError(`${lat}.accountId`, `no account "${l.accountId}" in accounts`);
        }
        const createdAt = ms(l.createdAt) ?? now;
        leadIds.set(id, { name: composeFullName(l.fullName, l.firstName, l.lastName), company: clean(l.companyName) });
        insertSeededLead(ctx, {
          id,
          campaignId: c.id,
          accountId: l.accountId ?? null,
          networkUrl: url,
          fullName: l.fullName ?? null,
          firstName: l.firstName ?? null,
          lastName: l.lastName ?? null,
          jobTitle: l.jobTitle ?? null,
          companyName: l.companyName ?? null,
          companyNetwork: l.companyNetwork ?? null,
          website: l.website ?? null,
          email: l.email ?? null,
          location: l.location ?? null,
          headline: l.headline ?? null,
          personalization: l.personalization ?? null,
          workExperience: JSON.stringify(l.workExperience),
          tag: l.tag,
          taggedAt: ms(l.taggedAt),
          stage: l.stage,
          excluded: l.excluded,
          replied: l.replied,
          needsReply: l.needsReply,
          repliedAt: ms(l.repliedAt),
          lastInboundMessageAt: ms(l.lastInboundMessageAt),
          connectionRequestAccepted: l.connectionRequestAccepted,
          messageSent: l.messageSent,
          source: l.source,
          createdAt,
          updatedAt: createdAt,
        });
      });
    });

    for (const raw of file.exclusions) {
      const url = normalizeProfileUrl(raw) as string;
      insertSeededExclusion(ctx, { networkUrl: url, createdAt: now });
    }

    const eventIds = new Set<string>();
    file.activity.forEach((e, i) => {
      if (eventIds.has(e.id)) throw new SeedError(`activity[${i}].id`, `duplicate activity id "${e.id}"`);
      eventIds.add(e.id);
      // Its campaign must be in the file: a campaign is never deleted, so an event of one that is
      // not there would be listed, and named by the insights, for an id that is 404 everywhere
      // else. Its lead and account may be gone (deleted leads and accounts keep their history).
      if (!campaignIds.has(e.campaignId)) throw new SeedError(`activity[${i}].campaignId`, `no campaign "${e.campaignId}" in campaigns`);
      const lead = leadIds.get(e.leadId);
      insertSeededActivity(ctx, {
        id: e.id,
        type: e.type,
        at: Date.parse(e.timestamp),
        leadId: e.leadId,
        leadName: e.leadName !== undefined ? e.leadName : (lead?.name ?? null),
        companyName: e.companyName !== undefined ? e.companyName : (lead?.company ?? null),
        campaignId: e.campaignId,
        messagePreview: e.messagePreview ?? null,
        handOffReason: e.handOffReason ?? null,
        accountId: e.accountId ?? null,
        manual: e.manual,
      });
    });

    file.webhooks?.endpoints.forEach((endpoint, i) => {
      try {
        addEndpoint(ctx, endpoint);
      } catch (err) {
        if (err instanceof ApiError) throw new SeedError(`webhooks.endpoints[${i}].url`, err.message.replace(/^url: /, ''));
        throw err;
      }
    });
  });
}

/**
 * An agent's steps as update_agent checks and stores them, keeping the ids the file gives (a
 * lead's position names its step by id); an error names its path under `at`.
 */
function seededSteps(steps: StepInput[], at: string): ReturnType<typeof stepColumns> {
  try {
    return stepColumns(buildSteps(steps, givenStepIds(steps)));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const field = err.details.fields?.[0] ?? 'steps';
    throw new SeedError(`${at}.${field}`, err.message.startsWith(`${field}: `) ? err.message.slice(field.length + 2) : err.message);
  }
}
