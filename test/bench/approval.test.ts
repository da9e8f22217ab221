import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../bench/lib/app.js';
import { runApproval } from '../../bench/lib/approval.js';
import { approvalTargets } from '../../bench/lib/report.js';

/**
 * The bench's approval case on a small campaign, so `npm run bench` does not rot and CI checks
 * the flow: the real engine drafts every note and message of a campaign with approval required,
 * a reviewer over MCP (the SDK client, streamable HTTP, the real server) approves them in
 * batches of up to 100, rewriting every tenth, and the campaign runs through. The auditor finds
 * nothing, and every send carried exactly the approved words.
 */
describe('bench: a campaign approved over MCP, through the simulator', () => {
  it('sends only approved drafts, word for word, within every account rule', async () => {
    const r = await runApproval(repoRoot(), { leads: 300, accounts: 4 });
    expect(r.campaignStatus).toBe('COMPLETED');
    // Every lead's invitation note was drafted, and the messages after an acceptance too.
    expect(r.drafts.byKind.invite).toBe(300);
    expect(r.drafts.byKind.message ?? 0).toBeGreaterThan(0);
    // Every draft was approved through MCP; nothing was left pending.
    expect(r.review.approved).toBe(r.drafts.total);
    expect(r.drafts.byStatus.pending ?? 0).toBe(0);
    expect(r.review.updateCalls).toBeGreaterThanOrEqual(Math.ceil(r.drafts.total / 100));
    expect(r.review.fullBatches).toBeGreaterThan(0);
    expect(r.review.rewritten).toBe(Math.floor(r.drafts.total / 10));
    // What went out is what was approved: every send with words has its draft, byte for byte.
    expect(r.mismatches).toEqual({ textDiffers: 0, sentWithoutDraft: 0, approvedNotSent: 0, examples: [] });
    // Every approval carried the revision the reviewer read: a draft rewritten under the reviewer
    // came back a conflict, was approved later at its new words, and its old words never went out.
    expect(r.stale.raced).toBeGreaterThan(0);
    expect(r.stale).toEqual({ raced: r.stale.raced, conflicts: r.stale.raced, sent: 0 });
    expect(r.sends.byKind.connection_request).toBe(300);
    expect(r.sends.withWords).toBe(r.drafts.byStatus.sent);
    expect(r.sends.withWords + r.stoppedByReply).toBe(r.drafts.total);
    // The auditor replayed every provider call and found no broken rule.
    expect(r.audit.calls).toBe(r.sends.total);
    expect(r.audit.examples).toEqual([]);
    expect(r.audit.violations).toBe(0);
    const [target] = approvalTargets(r);
    expect(target).toMatchObject({ id: 'approval-campaign', met: true });
    expect(target!.measured).toContain('every one the approved draft, byte for byte');
  }, 600_000);
});
