// @vitest-environment jsdom
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ActivityTimeline } from '../shared/components/ActivityTimeline.js';
import { CampaignCard } from '../shared/components/CampaignCard.js';
import { gridStep, InsightsPanel } from '../shared/components/InsightsPanel.js';
import { Untrusted } from '../shared/components/Untrusted.js';
import { LeadsTable } from '../shared/components/LeadsTable.js';
import { unwrap, ToolError } from '../shared/seam.js';
import { campaign, insights, lead } from './fixtures.js';
import { fakeCallTool, renderWith } from './render.js';

afterEach(cleanup);

describe('the seam', () => {
  it('unwraps structured content, falls back to the text block, and turns isError into a ToolError', () => {
    expect(unwrap({ structuredContent: { a: 1 }, content: [] })).toEqual({ a: 1 });
    expect(unwrap({ content: [{ type: 'text', text: '{"b":2}' }] })).toEqual({ b: 2 });
    const refused = () =>
      unwrap({ isError: true, structuredContent: { error: { code: 'conflict', message: 'Pause first.', details: { fields: ['x'] } } }, content: [] });
    expect(refused).toThrow(ToolError);
    try {
      refused();
    } catch (e) {
      expect((e as ToolError).code).toBe('conflict');
      expect((e as ToolError).details).toEqual({ fields: ['x'] });
    }
  });
});

describe('CampaignCard', () => {
  const agents = () => ({ agents: [{ id: 'tpl_1', name: 'Warm intro', accountId: 'acc_1', connectionNote: null, messages: [] }], nextCursor: null });

  it('renders status and funnel from the result it is given, and names its agent, not its id', async () => {
    const fake = fakeCallTool({ list_agents: agents });
    renderWith(<CampaignCard campaign={campaign()} />, fake.callTool);
    const card = screen.getByRole('article', { name: 'Campaign Founders in Berlin' });
    expect(within(card).getByText('Ready to send')).toBeTruthy();
    expect(within(card).getByRole('meter', { name: 'Accepted: 32' })).toBeTruthy();
    expect(within(card).getByText(/40\.0%/)).toBeTruthy();
    await within(card).findByText('Warm intro');
    expect(card.textContent).not.toContain('tpl_1');
    // The only call: the agents' names. The campaign itself came as a prop.
    expect(fake.calls.map((c) => c.name)).toEqual(['list_agents']);
  });

  it('asks get_agent for an agent beyond the first page of agents, and never shows an id', async () => {
    const fake = fakeCallTool({
      list_agents: agents,
      get_agent: () => ({ id: 'tpl_9', name: 'Late agent', accountId: null, connectionNote: null, messages: [] }),
    });
    renderWith(<CampaignCard campaign={campaign({ assignedTemplateId: 'tpl_9' })} />, fake.callTool);
    await screen.findByText('Late agent');
    expect(fake.callsOf('get_agent')[0]?.args).toEqual({ agentId: 'tpl_9' });
  });

  it('shows the next step instead of an empty funnel when nothing was sent', () => {
    const zero = { connectionRequestsSent: 0, connectionRequestsAccepted: 0, acceptanceRate: null, messagesSent: 0, repliesReceived: 0, replyRate: null };
    const fake = fakeCallTool({ list_agents: agents });
    const shows = (c: ReturnType<typeof campaign>, ...texts: RegExp[]) => {
      const { unmount } = renderWith(<CampaignCard campaign={c} />, fake.callTool);
      expect(screen.queryByRole('meter')).toBeNull();
      expect(screen.getByText('Nothing sent yet.')).toBeTruthy();
      for (const text of texts) expect(screen.getByText(text)).toBeTruthy();
      unmount();
    };
    shows(campaign({ stats: zero, totalLeads: 0 }), /no leads yet/);
    shows(campaign({ stats: zero, assignedTemplateId: null }), /Assign it an agent/, /no agent assigned/);
    shows(campaign({ stats: zero }), /Start it to send/);
  });

  it('starts through start_campaign and shows the campaign it returns', async () => {
    const started = campaign({ status: 'CAMPAIGN_IN_PROGRESS' });
    const fake = fakeCallTool({ start_campaign: () => ({ campaignId: 'cmp_1', action: 'started', status: 'CAMPAIGN_IN_PROGRESS', campaign: started }) });
    renderWith(<CampaignCard campaign={campaign()} />, fake.callTool);
    fireEvent.click(screen.getByRole('button', { name: 'Start Founders in Berlin' }));
    await screen.findByRole('button', { name: 'Pause Founders in Berlin' });
    expect(screen.getByText('Running')).toBeTruthy();
    expect(fake.callsOf('start_campaign')).toEqual([{ name: 'start_campaign', args: { campaignId: 'cmp_1' } }]);
  });

  it('shows the refusal of pause_campaign as an alert', async () => {
    const fake = fakeCallTool({ pause_campaign: () => ({ isError: true, error: { code: 'conflict', message: 'Leads are still being added.' } }) });
    renderWith(<CampaignCard campaign={campaign({ status: 'CAMPAIGN_IN_PROGRESS' })} />, fake.callTool);
    fireEvent.click(screen.getByRole('button', { name: 'Pause Founders in Berlin' }));
    expect((await screen.findByRole('alert')).textContent).toContain('Leads are still being added.');
  });
});

describe('InsightsPanel', () => {
  it('shows counters, credits, the last reply and a data table behind each chart', () => {
    const fake = fakeCallTool({});
    renderWith(
      <InsightsPanel
        insights={insights()}
        credits={{ credits: 950, topUpCredits: 0, lookalikeCredits: 100, lookalikeTopUpCredits: 0, planId: 'growth' }}
        series={{ days: [{ date: '2026-11-19', sends: 12, acceptances: 4, replies: 1 }] }}
      />,
      fake.callTool,
    );
    const counters = screen.getByRole('heading', { name: 'Insights' }).parentElement as HTMLElement;
    expect(within(counters).getByText('950')).toBeTruthy();
    expect(within(counters).getByText(/Ada Lovelace/)).toBeTruthy();
    const perDay = screen.getByRole('table', { name: 'Sends, acceptances and replies per day' });
    expect(within(perDay).getByRole('rowheader', { name: '2026-11-19' })).toBeTruthy();
    expect(within(perDay).getByRole('cell', { name: '12' })).toBeTruthy();
    expect(screen.getByRole('table', { name: /Top campaigns/ })).toBeTruthy();
    expect(fake.calls).toHaveLength(0);
  });

  it('says what to do instead of drawing flat lines at zero', () => {
    const fake = fakeCallTool({});
    const quiet = { days: [0, 1, 2].map((i) => ({ date: `2026-11-1${i}`, sends: 0, acceptances: 0, replies: 0 })) };
    renderWith(
      <InsightsPanel insights={insights({ topCampaignsByReplyRate: [], topCampaignsByAcceptanceRate: [] })} series={quiet} emptyNext="Start a campaign." />,
      fake.callTool,
    );
    expect(screen.queryByRole('table', { name: 'Sends, acceptances and replies per day' })).toBeNull();
    expect(screen.getByText('No sends, acceptances or replies in the last 3 days.')).toBeTruthy();
    expect(screen.getAllByText('Start a campaign.')).toHaveLength(1);
    expect(screen.getByText('Once one has, its acceptance and reply rates are compared here.')).toBeTruthy();
  });

  it('puts grid lines on whole numbers', () => {
    expect([1, 3, 4, 5, 7, 9, 40, 130, 999].map(gridStep)).toEqual([1, 1, 1, 2, 2, 5, 10, 50, 500]);
  });
});

describe('Untrusted', () => {
  it("isolates someone else's text in a bdi, and shows a dash for none", () => {
    const fake = fakeCallTool({});
    const { container } = renderWith(
      <p>
        <Untrusted>{'\u202eEvil name'}</Untrusted> (<Untrusted>{null}</Untrusted>)
      </p>,
      fake.callTool,
    );
    const bdi = container.querySelector('bdi.o-u');
    expect(bdi?.textContent).toBe('\u202eEvil name');
    expect(container.textContent).toBe('\u202eEvil name (—)');
  });
});

describe('ActivityTimeline', () => {
  it('lists events newest first with labels and previews, or says there are none', () => {
    const fake = fakeCallTool({});
    const { rerender } = renderWith(
      <ActivityTimeline
        events={[
          {
            id: 'ev_2',
            type: 'reply_received',
            timestamp: '2026-11-20T10:00:00.000Z',
            leadId: 'lead_1',
            leadName: 'Ada',
            companyName: 'Acme',
            campaignId: 'cmp_1',
            messagePreview: 'Sounds good',
            handOffReason: null,
          },
          {
            id: 'ev_1',
            type: 'connection_request_sent',
            timestamp: '2026-11-19T10:00:00.000Z',
            leadId: 'lead_1',
            leadName: 'Ada',
            companyName: 'Acme',
            campaignId: 'cmp_1',
            messagePreview: null,
            handOffReason: null,
          },
        ]}
      />,
      fake.callTool,
    );
    const items = within(screen.getByRole('list', { name: 'Recent activity' })).getAllByRole('listitem');
    expect(items.map((li) => li.textContent)).toEqual([expect.stringContaining('Reply received'), expect.stringContaining('Connection request sent')]);
    expect(items[0]?.textContent).toContain('Sounds good');
    rerender(<ActivityTimeline events={[]} />);
    expect(screen.getByText('No activity yet.')).toBeTruthy();
    expect(screen.getByText(/Start a campaign/)).toBeTruthy();
  });
});

describe('LeadsTable', () => {
  const page1 = { leads: [lead(1), lead(2, { needsReply: true, replied: true, repliedAt: '2026-11-20T10:00:00.000Z' })], nextCursor: 'c2' };
  const page2 = { leads: [lead(3)], nextCursor: null };

  function leadsFake() {
    return fakeCallTool({
      list_leads: (args) => (args.cursor === 'c2' ? page2 : page1),
      update_leads_batch: (args) => {
        const updates = args.updates as { leadId: string }[];
        return {
          results: updates.map((u, index) => ({ index, leadId: u.leadId, status: 'updated', tag: null, excluded: true })),
          summary: { total: updates.length, updated: updates.length, not_found: 0, validation_error: 0, failed: 0 },
          creditsCharged: 0,
        };
      },
      delete_leads_batch: (args) => {
        const ids = args.leadIds as string[];
        return {
          results: ids.map((leadId, index) => ({ index, leadId, status: 'deleted' })),
          summary: { total: ids.length, deleted: ids.length, not_found: 0, validation_error: 0, failed: 0 },
          creditsCharged: 0,
          reconciliationFailed: false,
        };
      },
      get_campaign: () => campaign(),
      list_campaigns: () => ({ campaigns: [campaign()], nextCursor: null }),
    });
  }

  it('renders the first page it is handed without calling, then pages forward and back by cursor', async () => {
    const fake = leadsFake();
    renderWith(<LeadsTable campaignId="cmp_1" initial={page1} />, fake.callTool);
    expect(screen.getByRole('checkbox', { name: 'Select Lead Number1' })).toBeTruthy();
    expect(fake.callsOf('list_leads')).toHaveLength(0);
    fireEvent.click(screen.getByRole('button', { name: 'Next page' }));
    await screen.findByRole('checkbox', { name: 'Select Lead Number3' });
    expect(fake.callsOf('list_leads').at(-1)?.args).toEqual({ campaignId: 'cmp_1', sort: 'createdAt', limit: 50, cursor: 'c2' });
    fireEvent.click(screen.getByRole('button', { name: 'Previous page' }));
    await screen.findByRole('checkbox', { name: 'Select Lead Number1' });
  });

  it('offers only the sorts a filter allows and sends one filter at a time', async () => {
    const fake = leadsFake();
    renderWith(<LeadsTable campaignId="cmp_1" />, fake.callTool);
    await screen.findByRole('checkbox', { name: 'Select Lead Number1' });
    const sort = screen.getByLabelText('Sort by (newest first)') as HTMLSelectElement;
    expect([...sort.options].map((o) => o.value)).toEqual(['createdAt', 'lastInboundMessageAt']);
    fireEvent.change(screen.getByLabelText('Show'), { target: { value: 'tag:Interested' } });
    expect([...sort.options].map((o) => o.value)).toEqual(['createdAt', 'taggedAt']);
    fireEvent.change(sort, { target: { value: 'taggedAt' } });
    await waitFor(() => expect(fake.callsOf('list_leads').at(-1)?.args).toEqual({ campaignId: 'cmp_1', sort: 'taggedAt', limit: 50, tag: 'Interested' }));
    fireEvent.change(screen.getByLabelText('Show'), { target: { value: 'needsReply:true' } });
    expect([...sort.options].map((o) => o.value)).toEqual(['createdAt']);
    await waitFor(() => expect(fake.callsOf('list_leads').at(-1)?.args).toEqual({ campaignId: 'cmp_1', sort: 'createdAt', limit: 50, needsReply: true }));
  });

  it('tags and excludes the selected leads in one batch', async () => {
    const fake = leadsFake();
    renderWith(<LeadsTable campaignId="cmp_1" initial={page1} />, fake.callTool);
    const tick = (name: string) => screen.getByRole('checkbox', { name }) as HTMLInputElement;
    fireEvent.click(tick('Select every lead on this page'));
    expect(screen.getByText('2 selected')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Tag to apply'), { target: { value: 'Interested' } });
    fireEvent.click(screen.getByRole('button', { name: 'Apply tag' }));
    expect((await screen.findByRole('status')).textContent).toBe('Tagged 2 of 2 leads.');
    expect(fake.callsOf('update_leads_batch')[0]?.args).toEqual({
      campaignId: 'cmp_1',
      updates: [
        { leadId: 'lead_1', tag: 'Interested' },
        { leadId: 'lead_2', tag: 'Interested' },
      ],
    });
    // The tagged leads are unticked: a delete next is on the leads ticked since, not on these too.
    await screen.findByText('0 selected');
    expect([tick('Select Lead Number1').checked, tick('Select Lead Number2').checked]).toEqual([false, false]);
    fireEvent.click(tick('Select Lead Number2'));
    fireEvent.click(screen.getByRole('button', { name: 'Delete…' }));
    expect(screen.getByRole('alertdialog').textContent).toContain('Delete 1 lead permanently?');
    fireEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Cancel' }));
    fireEvent.click(tick('Select every lead on this page'));
    expect(screen.getByText('2 selected')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Exclude' }));
    await waitFor(() => expect(fake.callsOf('update_leads_batch')).toHaveLength(2));
    expect(fake.callsOf('update_leads_batch')[1]?.args).toEqual({
      campaignId: 'cmp_1',
      updates: [
        { leadId: 'lead_1', excluded: true },
        { leadId: 'lead_2', excluded: true },
      ],
    });
  });

  it('finds leads through search_leads and goes back to the list', async () => {
    const fake = fakeCallTool({
      list_leads: () => page1,
      search_leads: (args) => ({ leads: args.query === 'number3' ? [lead(3)] : [], more: false }),
    });
    renderWith(<LeadsTable campaignId="cmp_1" initial={page1} searchable />, fake.callTool);
    const search = screen.getByRole('search', { name: 'Find a lead' });
    fireEvent.change(within(search).getByLabelText('Find a lead by name, company or profile URL'), { target: { value: ' number3 ' } });
    fireEvent.click(within(search).getByRole('button', { name: 'Find' }));
    await screen.findByRole('checkbox', { name: 'Select Lead Number3' });
    expect(fake.callsOf('search_leads')[0]?.args).toEqual({ campaignId: 'cmp_1', query: 'number3', limit: 50 });
    expect(screen.getByText('1 lead found for “number3”.')).toBeTruthy();
    expect(screen.queryByLabelText('Show')).toBeNull();
    fireEvent.click(within(search).getByRole('button', { name: 'Show all leads' }));
    await screen.findByRole('checkbox', { name: 'Select Lead Number1' });
    expect(screen.getByLabelText('Show')).toBeTruthy();
  });

  it('has no search box unless asked (a view has no search_leads), and says what a campaign with no leads needs', async () => {
    const fake = fakeCallTool({ list_leads: () => ({ leads: [], nextCursor: null }) });
    renderWith(<LeadsTable campaignId="cmp_1" emptyNext="Import a CSV." />, fake.callTool);
    await screen.findByText('This campaign has no leads yet.');
    expect(screen.getByText('Import a CSV.')).toBeTruthy();
    expect(screen.queryByRole('search')).toBeNull();
  });

  it('includes excluded leads again in one batch', async () => {
    const fake = leadsFake();
    renderWith(<LeadsTable campaignId="cmp_1" initial={page1} />, fake.callTool);
    fireEvent.click(screen.getByRole('checkbox', { name: 'Select Lead Number1' }));
    fireEvent.click(screen.getByRole('button', { name: 'Include' }));
    expect((await screen.findByRole('status')).textContent).toBe('Included 1 of 1 leads.');
    expect(fake.callsOf('update_leads_batch')[0]?.args).toEqual({ campaignId: 'cmp_1', updates: [{ leadId: 'lead_1', excluded: false }] });
  });

  it('asks before deleting, deletes nothing on cancel, and deletes the selection on confirm', async () => {
    const fake = leadsFake();
    renderWith(<LeadsTable campaignId="cmp_1" initial={page1} />, fake.callTool);
    fireEvent.click(screen.getByRole('checkbox', { name: 'Select Lead Number2' }));
    fireEvent.click(screen.getByRole('button', { name: 'Delete…' }));
    const dialog = screen.getByRole('alertdialog');
    expect(dialog.textContent).toContain('Delete 1 lead permanently?');
    await waitFor(() => expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Delete permanently' })));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(fake.callsOf('delete_leads_batch')).toHaveLength(0);
    fireEvent.click(screen.getByRole('button', { name: 'Delete…' }));
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Delete permanently' }));
    });
    expect((await screen.findByRole('status')).textContent).toBe('Deleted 1 of 1 leads.');
    expect(fake.callsOf('delete_leads_batch')[0]?.args).toEqual({ campaignId: 'cmp_1', leadIds: ['lead_2'] });
  });
});
