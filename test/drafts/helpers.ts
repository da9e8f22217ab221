import type { DraftInput } from '../../src/core/drafts/prepare.js';
import type { WorkspaceFileInput } from '../../src/core/seed/file.js';
import { fixture } from '../helpers.js';

/** People for the drafts' leads: first, last, title, company. */
export const PEOPLE = [
  ['Grace', 'Hopper', 'VP Engineering', 'Navy Labs'],
  ['Alan', 'Turing', 'Head of Research', 'Bletchley'],
  ['Katherine', 'Johnson', 'Principal Analyst', 'Langley'],
  ['Edsger', 'Dijkstra', 'CTO', 'Structured'],
  ['Barbara', 'Liskov', 'Architect', 'Substitution'],
] as const;

/**
 * The fixture with a campaign `cmp_review` whose approval is required (agent tpl_intro, account
 * acc_ada) holding `count` leads `lead_r0`, `lead_r1`, …, and `cmp_q4` as it is (approval off).
 */
export function reviewWorkspace(count = 5): WorkspaceFileInput {
  const ws = fixture() as any;
  const ada = ws.campaigns.find((c: any) => c.id === 'cmp_q4').leads[0];
  ws.campaigns.push({
    id: 'cmp_review',
    name: 'Review',
    status: 'CAMPAIGN_IN_PROGRESS',
    assignedTemplateId: 'tpl_intro',
    approval: 'required',
    leads: Array.from({ length: count }, (_, i) => {
      const [first, last, title, company] = PEOPLE[i % PEOPLE.length]!;
      return {
        ...ada,
        id: `lead_r${i}`,
        networkUrl: `https://www.linkedin.com/in/${first.toLowerCase()}-${last.toLowerCase()}-${i}`,
        firstName: first,
        lastName: last,
        jobTitle: title,
        companyName: company,
        location: 'London',
        createdAt: `2026-11-01T1${i % 10}:00:00Z`,
      };
    }),
  });
  return ws as WorkspaceFileInput;
}

/** The engine's request for a lead's invitation-note draft in `cmp_review` (from acc_ada); `over` changes any of it. */
export const noteFor = (leadId: string, over: Partial<DraftInput> = {}): DraftInput => ({
  campaignId: 'cmp_review',
  leadId,
  stepId: 'stp_note',
  variant: 'A',
  kind: 'invite',
  accountId: 'acc_ada',
  text: `Hi there, ${leadId}`,
  ...over,
});
