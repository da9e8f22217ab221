// @vitest-environment jsdom
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { DraftQueue } from '../shared/components/DraftQueue.js';
import type { Draft } from '../shared/types.js';
import { fakeCallTool, renderWith } from './render.js';

afterEach(cleanup);

function draft(n: number, over: Partial<Draft> = {}): Draft {
  return {
    id: `drf_${n}`,
    campaignId: 'cmp_1',
    leadId: `lead_${n}`,
    stepId: 'stp_1',
    variant: 'A',
    kind: 'invite',
    subject: null,
    text: `Hi ${n}`,
    status: 'pending',
    accountId: 'acc_1',
    renderedSubject: null,
    renderedText: `Hi ${n}`,
    drafterError: null,
    createdAt: '2026-11-21T12:00:00.000Z',
    updatedAt: '2026-11-21T12:00:00.000Z',
    lead: { fullName: `Lead ${n}`, jobTitle: 'CTO', companyName: `Co ${n}`, headline: null, location: 'Berlin', personalization: null, networkUrl: null },
    ...over,
  };
}

describe('DraftQueue', () => {
  it('approves a selection in one update_drafts call, an edited draft with its new words', async () => {
    const fake = fakeCallTool({
      list_drafts: () => ({ drafts: [draft(1), draft(2), draft(3, { drafterError: 'The model answered HTTP 500.' })], nextCursor: null }),
      update_drafts: (args) => {
        const items = args.drafts as { id: string }[];
        return {
          results: items.map((d, index) => ({ index, draftId: d.id, status: 'updated' })),
          summary: { total: items.length, updated: items.length, not_found: 0, validation_error: 0, conflict: 0 },
        };
      },
    });
    renderWith(<DraftQueue args={{ campaignId: 'cmp_1', status: 'pending' }} />, fake.callTool);
    const first = await screen.findByRole('article', { name: 'Draft for Lead 1' });
    fireEvent.change(within(first).getByLabelText('Invitation note for Lead 1'), { target: { value: 'Hello Lead 1, glad to meet a CTO.' } });
    // The template shows beside the edit; the model's failure shows on its draft.
    expect(within(first).getByRole('figure').textContent).toContain('Hi 1');
    expect(screen.getByText(/The model’s rewrite was not used: The model answered HTTP 500\./)).toBeTruthy();
    fireEvent.click(screen.getByRole('checkbox', { name: 'Select Lead 1' }));
    fireEvent.click(screen.getByRole('checkbox', { name: 'Select Lead 2' }));
    fireEvent.click(screen.getByRole('button', { name: 'Approve selected (2)' }));
    await waitFor(() => expect(fake.callsOf('update_drafts')).toHaveLength(1));
    expect(fake.callsOf('update_drafts')[0]?.args).toEqual({
      drafts: [
        { id: 'drf_1', text: 'Hello Lead 1, glad to meet a CTO.', status: 'approved' },
        { id: 'drf_2', status: 'approved' },
      ],
    });
    await screen.findByText('Approved: 2 of 2.');
  });

  it('shows an item refused by the server on its draft, and blocks an over-long note', async () => {
    const fake = fakeCallTool({
      list_drafts: () => ({ drafts: [draft(1)], nextCursor: null }),
      update_drafts: () => ({
        results: [{ index: 0, draftId: 'drf_1', status: 'conflict', error: { code: 'conflict', message: 'Draft drf_1 was already sent; it cannot change.' } }],
        summary: { total: 1, updated: 0, not_found: 0, validation_error: 0, conflict: 1 },
      }),
    });
    renderWith(<DraftQueue args={{ campaignId: 'cmp_1' }} />, fake.callTool);
    const item = await screen.findByRole('article', { name: 'Draft for Lead 1' });
    const text = within(item).getByLabelText('Invitation note for Lead 1');
    fireEvent.change(text, { target: { value: 'x'.repeat(301) } });
    expect(within(item).getByText('301 of 300 characters')).toBeTruthy();
    expect((within(item).getByRole('button', { name: /^Approve/ }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(text, { target: { value: 'Short again' } });
    fireEvent.click(within(item).getByRole('button', { name: /^Reject/ }));
    expect((await within(item).findByRole('alert')).textContent).toContain('already sent');
  });
});
