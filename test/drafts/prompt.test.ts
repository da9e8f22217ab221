import { describe, expect, it } from 'vitest';
import { DRAFT_LIMITS } from '../../src/core/drafts/rules.js';
import { toolByName } from '../../src/tools/index.js';
import { personalizeDraftsPrompt } from '../../src/tools/prompts/personalize-drafts.js';

describe('the personalize_drafts prompt', () => {
  const prompt = personalizeDraftsPrompt;

  it('is listed with one required argument, campaignId', () => {
    expect(prompt.name).toBe('personalize_drafts');
    expect(prompt.arguments).toEqual([{ name: 'campaignId', description: expect.stringContaining('list_campaigns'), required: true }]);
    expect(prompt.description.length).toBeLessThanOrEqual(120);
  });

  it('checks its argument by name', () => {
    expect(prompt.argsSchema.safeParse({ campaignId: 'cmp_q4' }).success).toBe(true);
    for (const bad of [{}, { campaignId: 'bad id' }, { campaignId: 'cmp_q4', extra: 1 }]) {
      const r = prompt.argsSchema.safeParse(bad);
      expect(r.success).toBe(false);
      expect(r.error?.issues[0]?.path[0] ?? (r.error?.issues[0] as { keys?: string[] })?.keys?.[0]).toMatch(/campaignId|extra/);
    }
  });

  it('tells the assistant the whole way, for this campaign, with the real limits and tools', () => {
    const messages = prompt.messages({ campaignId: 'cmp_q4' });
    expect(messages).toHaveLength(1);
    const [{ role, content }] = messages as [(typeof messages)[number]];
    expect(role).toBe('user');
    const text = content.text;
    expect(text).toContain('campaignId "cmp_q4"');
    // Every tool it names exists, and the order is read, research, rewrite, save, ask.
    const named = [...text.matchAll(/\b([a-z]+_[a-z_]+)\b/g)].map((m) => m[1]!).filter((n) => n !== 'validation_error');
    expect(new Set(named)).toEqual(new Set(['list_drafts', 'lookup_profile', 'list_accounts', 'update_drafts']));
    for (const tool of named) expect(toolByName.has(tool), tool).toBe(true);
    const at = (s: string) => text.indexOf(s);
    expect(at('list_drafts')).toBeLessThan(at('lookup_profile'));
    expect(at('lookup_profile')).toBeLessThan(at('Rewrite'));
    expect(at('Rewrite')).toBeLessThan(at('update_drafts'));
    expect(text).toContain(`at most ${DRAFT_LIMITS.invite.text} characters`);
    expect(text).toContain(`at most ${DRAFT_LIMITS.message.text}`);
    expect(text).toContain(`subject at most ${DRAFT_LIMITS.inmail.subject}`);
    expect(text).toMatch(/no status/);
    expect(text).toMatch(/Never approve without asking me/);
    // Short: a prompt is read on every use.
    expect(text.length).toBeLessThan(1600);
  });
});
