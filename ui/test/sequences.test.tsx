// @vitest-environment jsdom
// biome-ignore-all lint/suspicious/noThenProperty: an if step's branches are named then and else, as the API names them; these objects are never awaited.
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentEditorPage } from '../dashboard/pages/Agents.js';
import { CampaignSenders } from '../dashboard/pages/campaigns/Senders.js';
import { sequencePaths } from '../dashboard/pages/agents/paths.js';
import {
  appendStep,
  asSimpleShape,
  countSteps,
  type EditStep,
  fromSaved,
  messageAbout,
  moveStep,
  removeStep,
  resolveField,
  stepTargets,
  toInput,
} from '../dashboard/pages/agents/sequence.js';
import { placeErrors } from '../dashboard/pages/agents/useAgentDraft.js';
import { StepFunnel } from '../shared/components/StepFunnel.js';
import { OfferedToolsProvider } from '../shared/offered.js';
import { ToolError } from '../shared/seam.js';
import type { AgentPreviewResult, AgentStats, StepInput } from '../shared/types.js';
import { account, campaign, lead, legacyAgent, stepsAgent } from './fixtures.js';
import { fakeTools, holdAnswers, renderWith, type ToolHandlers } from './render.js';

afterEach(cleanup);

const keys = (steps: readonly EditStep[]): unknown[] => steps.map((s) => (s.kind === 'if' ? [s.key, keys(s.then), keys(s.else)] : s.key));

describe('the sequence model', () => {
  it('reads saved steps and writes them back with their ids, unchanged', () => {
    const saved = stepsAgent().steps;
    expect(toInput(fromSaved(saved))).toEqual(saved);
    // A blank note is no note; a blank number goes out as NaN (null on the wire), for the server to name.
    const [invite] = fromSaved([{ id: 'stp_x', kind: 'invite', note: null }]) as [EditStep];
    expect(toInput([{ ...invite, note: '  ' } as EditStep])).toEqual([{ id: 'stp_x', kind: 'invite', note: null }]);
    expect((toInput([{ key: 'k', kind: 'wait', hours: '' }])[0] as { hours: number }).hours).toBeNaN();
  });

  it('moves, removes and adds steps anywhere in the tree, by key', () => {
    const tree = fromSaved(stepsAgent().steps);
    expect(keys(moveStep(tree, 'stp_invite000000000A', -1))).toEqual([
      'stp_invite000000000A',
      'stp_visit0000000000A',
      ['stp_ifaccepted00000A', ['stp_wait00000000000A', 'stp_message00000000A'], ['stp_withdraw0000000A', 'stp_inmail000000000A']],
    ]);
    // Inside a branch, among its own steps only; at the edge nothing moves.
    expect(keys(moveStep(tree, 'stp_inmail000000000A', -1))[2]).toEqual([
      'stp_ifaccepted00000A',
      ['stp_wait00000000000A', 'stp_message00000000A'],
      ['stp_inmail000000000A', 'stp_withdraw0000000A'],
    ]);
    expect(moveStep(tree, 'stp_visit0000000000A', -1)).toEqual(tree);
    const removed = removeStep(tree, 'stp_wait00000000000A');
    expect(countSteps(removed)).toBe(countSteps(tree) - 1);
    const added = appendStep(tree, { ifKey: 'stp_ifaccepted00000A', branch: 'else' }, { key: 'new', kind: 'visit' });
    expect(keys(added)[2]).toEqual([
      'stp_ifaccepted00000A',
      ['stp_wait00000000000A', 'stp_message00000000A'],
      ['stp_withdraw0000000A', 'stp_inmail000000000A', 'new'],
    ]);
  });

  it('knows the note-and-messages shape, and when a tree has left it', () => {
    const tree = fromSaved(legacyAgent().steps);
    expect(asSimpleShape(tree, 504)).toEqual({
      connectionNote: 'Hi {{firstName}}',
      messages: [
        { text: 'Thanks for connecting!', delayHours: 1 },
        { text: 'Following up.', delayHours: 0 },
      ],
    });
    // Another timeout, a variant, a visit, a message in the else branch: steps from then on.
    expect(asSimpleShape(tree, 336)).toBeNull();
    const invite = tree[0] as Extract<EditStep, { kind: 'invite' }>;
    expect(asSimpleShape([{ ...invite, variants: ['B'] }, ...tree.slice(1)], 504)).toBeNull();
    expect(asSimpleShape([{ key: 'v', kind: 'visit' }, ...tree], 504)).toBeNull();
    expect(
      asSimpleShape(appendStep(tree, { ifKey: 'stp_1123456789abcdef', branch: 'else' }, { key: 'm', kind: 'message', text: 'x', variants: [] }), 504),
    ).toBeNull();
    // Two waits in a row, or a wait at the end, have no delayHours to go in.
    expect(asSimpleShape(appendStep(tree, { ifKey: 'stp_1123456789abcdef', branch: 'then' }, { key: 'w', kind: 'wait', hours: '5' }), 504)).toBeNull();
  });

  it('places each field a refusal names at its step, with what the message says about it', () => {
    const tree = fromSaved(stepsAgent().steps);
    const targets = stepTargets(tree);
    expect(resolveField(targets, 'steps[2].then[1].variants[0].text')).toEqual({ key: 'stp_message00000000A', field: 'variants[0].text' });
    expect(resolveField(targets, 'steps[2].else[1]')).toEqual({ key: 'stp_inmail000000000A', field: '' });
    expect(resolveField(targets, 'steps[2].withinHours')).toEqual({ key: 'stp_ifaccepted00000A', field: 'withinHours' });
    expect(resolveField(targets, 'steps')).toBeNull();
    const message = 'steps[2].then[1].variants[0].text: unknown placeholder "{{x}}". Placeholders: …; steps[0].id: not a step of this agent.';
    expect(messageAbout(message, 'steps[2].then[1].variants[0].text')).toBe('Unknown placeholder "{{x}}". Placeholders: ….');
    expect(messageAbout(message, 'steps[0].id')).toBe('Not a step of this agent.');
    const placed = placeErrors(
      new ToolError('validation_error', message, { fields: ['steps[2].then[1].variants[0].text', 'steps[0].id', 'steps', 'name'] }),
      targets,
    );
    expect(placed.steps).toEqual({
      stp_message00000000A: { 'variants[0].text': 'Unknown placeholder "{{x}}". Placeholders: ….' },
      stp_visit0000000000A: { id: 'Not a step of this agent.' },
    });
    expect(placed.sequence).toEqual(['Check this field.']);
    expect(placed.top).toEqual({ name: 'Check this field.' });
  });

  it('lists every path through the branches, a reply ending its path', () => {
    const { paths } = sequencePaths(stepsAgent().steps);
    expect(paths.map((p) => [p.label, p.stops.map((s) => `${s.number}${s.branch ?? ''}`)])).toEqual([
      ['Accepted within 7 days', ['1', '2', '3then', '4', '5']],
      ['Not accepted after 7 days', ['1', '2', '3else', '6', '7']],
    ]);
    const replied = sequencePaths([
      { id: 'stp_m', kind: 'message', text: 'Hi' },
      {
        id: 'stp_i',
        kind: 'if',
        condition: 'replied',
        withinHours: 72,
        then: [{ id: 'stp_t', kind: 'visit' }],
        else: [{ id: 'stp_f', kind: 'message', text: 'Again' }],
      },
      { id: 'stp_end', kind: 'withdraw' },
    ]);
    expect(replied.paths.map((p) => [p.label, p.endsAtReply, p.stops.map((s) => s.step.id)])).toEqual([
      ['Replied within 3 days', true, ['stp_m', 'stp_i']],
      ['No reply after 3 days', false, ['stp_m', 'stp_i', 'stp_f', 'stp_end']],
    ]);
  });
});

/** The tools the agent editor reads, around the agent given. */
function editorTools(agent = stepsAgent(), over: ToolHandlers = {}): ToolHandlers {
  return {
    get_agent: () => agent,
    get_agent_shape: () => ({ agentId: agent.id, writtenWith: 'steps' }),
    list_accounts: () => ({ accounts: [account(1)], nextCursor: null }),
    list_campaigns: () => ({ campaigns: [campaign()], nextCursor: null }),
    list_leads: () => ({ leads: [lead(1, { firstName: 'Grace', fullName: 'Grace Hopper' })], nextCursor: null }),
    preview_agent: () => preview(),
    // The unsaved sequence's preview: the invitation's note as typed, by path (new steps have no id).
    preview_agent_draft: (args) => {
      const typed = args.steps[1];
      const saved = preview();
      return {
        ...saved,
        steps: saved.steps.map((s) =>
          s.path === 'steps[1]' && typed?.kind === 'invite'
            ? { ...s, variants: [{ variant: 'A', text: String(typed.note ?? '').replace('{{firstName}}', 'Grace') }] }
            : s,
        ),
      };
    },
    list_agents: () => ({ agents: [agent], nextCursor: null }),
    update_agent: (args) => ({ ...agent, name: args.name ?? agent.name }),
    ...over,
  };
}

function preview(): AgentPreviewResult {
  return {
    agentId: 'tpl_steps',
    leadId: 'lead_1',
    connectionNote: 'Hi Grace',
    messages: ['Thanks, Grace!'],
    steps: [
      { stepId: 'stp_visit0000000000A', kind: 'visit', path: 'steps[0]' },
      {
        stepId: 'stp_invite000000000A',
        kind: 'invite',
        path: 'steps[1]',
        variants: [
          { variant: 'A', text: 'Hi Grace' },
          { variant: 'B', text: 'Hello Grace' },
        ],
      },
      { stepId: 'stp_ifaccepted00000A', kind: 'if', path: 'steps[2]' },
      { stepId: 'stp_wait00000000000A', kind: 'wait', path: 'steps[2].then[0]' },
      {
        stepId: 'stp_message00000000A',
        kind: 'message',
        path: 'steps[2].then[1]',
        variants: [
          { variant: 'A', text: 'Thanks, Grace!' },
          { variant: 'B', text: 'Great to meet you.' },
        ],
      },
      { stepId: 'stp_withdraw0000000A', kind: 'withdraw', path: 'steps[2].else[0]' },
      {
        stepId: 'stp_inmail000000000A',
        kind: 'inmail',
        path: 'steps[2].else[1]',
        subject: 'An idea for Navy Labs',
        variants: [{ variant: 'A', text: 'Hi Grace, one idea.' }],
      },
    ],
  };
}

const group = (name: string) => screen.getByRole('group', { name });

/** The senders form on a campaign the page polls: `onStore` hands out the setter standing in for each new read. */
function PolledSenders({ initial, onStore }: { initial: string[]; onStore: (set: (ids: string[]) => void) => void }) {
  const [ids, setIds] = useState(initial);
  onStore(setIds);
  return <CampaignSenders campaign={campaign({ senderAccountIds: ids })} />;
}

describe('the sequence editor', () => {
  it('shows the steps as a tree, the branches under their if, and saves changes with every kept id', async () => {
    const fake = fakeTools(editorTools());
    renderWith(<AgentEditorPage agentId="tpl_steps" />, fake.callTool);
    await screen.findByRole('group', { name: 'Step 1: Visit the profile' });
    const accepted = group('Step 3: Then · Accepted within 7 days');
    const declined = group('Step 3: Else · Not accepted after 7 days');
    expect(within(accepted).getByRole('group', { name: 'Step 5: Message' })).toBeTruthy();
    expect(within(declined).getByRole('group', { name: 'Step 7: InMail' })).toBeTruthy();
    expect((within(group('Step 2: Invitation')).getByLabelText('Note, variant B') as HTMLTextAreaElement).value).toBe('Hello {{firstName|there}}');

    // Move the invitation first, remove the visit, add a wait to the else branch, add a variant C.
    fireEvent.click(screen.getByRole('button', { name: 'Move step 2 up' }));
    await waitFor(() => expect(document.activeElement?.getAttribute('aria-label')).toBe('Move step 1 down'));
    fireEvent.click(screen.getByRole('button', { name: 'Remove step 2' }));
    expect(screen.queryByRole('group', { name: 'Step 2: Visit the profile' })).toBeNull();
    fireEvent.change(screen.getByLabelText('Kind of step to add to step 2, not accepted after 7 days'), { target: { value: 'wait' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add step to step 2, not accepted after 7 days' }));
    const wait = await screen.findByRole('group', { name: 'Step 7: Wait' });
    await waitFor(() => expect(document.activeElement).toBe(within(wait).getByLabelText('Hours to wait')));
    fireEvent.change(within(wait).getByLabelText('Hours to wait'), { target: { value: '48' } });
    expect(within(wait).getByText('2 days')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Add variant C to step 1' }));
    fireEvent.change(within(group('Step 1: Invitation')).getByLabelText('Note, variant C'), { target: { value: 'Hey {{firstName|there}}' } });

    fireEvent.click(screen.getByRole('button', { name: 'Save agent' }));
    await screen.findByText(/^Saved\./);
    const sent = fake.callsOf('update_agent')[0]?.args as { steps: StepInput[] };
    expect(sent).toMatchObject({ agentId: 'tpl_steps', name: 'Branching intro', accountId: 'acc_1' });
    expect(sent.steps).toEqual([
      {
        id: 'stp_invite000000000A',
        kind: 'invite',
        note: 'Hi {{firstName|there}}',
        variants: [{ note: 'Hello {{firstName|there}}' }, { note: 'Hey {{firstName|there}}' }],
      },
      {
        id: 'stp_ifaccepted00000A',
        kind: 'if',
        condition: 'accepted',
        withinHours: 168,
        then: [
          { id: 'stp_wait00000000000A', kind: 'wait', hours: 24 },
          { id: 'stp_message00000000A', kind: 'message', text: 'Thanks, {{firstName|there}}!', variants: [{ text: 'Great to meet you.' }] },
        ],
        else: [
          { id: 'stp_withdraw0000000A', kind: 'withdraw' },
          { id: 'stp_inmail000000000A', kind: 'inmail', subject: 'An idea for {{companyName}}', text: 'Hi {{firstName|there}}, one idea.' },
          { kind: 'wait', hours: 48 },
        ],
      },
    ]);
  });

  it('keeps a change made while a save is on its way unsaved, and says so', async () => {
    const fake = fakeTools(editorTools());
    // The save's answer waits until the test lets it go.
    const { callTool, release: answer } = holdAnswers(fake.callTool, 'update_agent');
    renderWith(<AgentEditorPage agentId="tpl_steps" />, callTool);
    await screen.findByRole('group', { name: 'Step 1: Visit the profile' });
    const name = screen.getByLabelText('Name') as HTMLInputElement;
    fireEvent.change(name, { target: { value: 'Branching intro, take 2' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save agent' }));
    await waitFor(() => expect(fake.callsOf('update_agent')).toHaveLength(1));
    fireEvent.change(name, { target: { value: 'Branching intro, take 3' } });
    await act(async () => answer());
    await waitFor(() => expect(fake.callsOf('get_agent').length).toBeGreaterThan(1));
    // The first save landed; the name typed since is still the person's, and still unsaved.
    expect(name.value).toBe('Branching intro, take 3');
    expect(screen.queryByText(/^Saved\./)).toBeNull();
    expect(screen.getByText(/before you save it/)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Save agent' }));
    await screen.findByText(/^Saved\./);
    expect(fake.callsOf('update_agent')[1]?.args).toMatchObject({ name: 'Branching intro, take 3' });
  });

  it('shows a refused save at the field it names, puts the cursor there, and clears it once edited', async () => {
    const fake = fakeTools(
      editorTools(stepsAgent(), {
        update_agent: () => ({
          isError: true,
          error: {
            code: 'validation_error',
            message: 'steps[2].then[1].variants[0].text: unknown placeholder "{{nick}}". Placeholders: {{firstName}}, …',
            details: { fields: ['steps[2].then[1].variants[0].text'] },
          },
        }),
      }),
    );
    renderWith(<AgentEditorPage agentId="tpl_steps" />, fake.callTool);
    const message = await screen.findByRole('group', { name: 'Step 5: Message' });
    fireEvent.change(within(message).getByLabelText('Text, variant B'), { target: { value: 'Hi {{nick}}' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save agent' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('the fields to fix are marked');
    const field = within(message).getByLabelText('Text, variant B');
    await waitFor(() => expect(field.getAttribute('aria-invalid')).toBe('true'));
    const error = within(message).getByText(/^Unknown placeholder "\{\{nick\}\}"/);
    expect(field.getAttribute('aria-describedby')).toContain(error.id);
    expect(document.activeElement).toBe(field);
    fireEvent.change(field, { target: { value: 'Hi {{firstName}}' } });
    expect(field.getAttribute('aria-invalid')).toBeNull();
    expect(within(message).queryByText(/^Unknown placeholder/)).toBeNull();
  });

  it('keeps an agent written as a note and messages in that shape while it fits, and says when a change makes it steps', async () => {
    const agent = legacyAgent();
    const fake = fakeTools(editorTools(agent, { get_agent_shape: () => ({ agentId: agent.id, writtenWith: 'note_and_messages' }) }));
    renderWith(<AgentEditorPage agentId="tpl_legacy" />, fake.callTool);
    const second = await screen.findByRole('group', { name: 'Step 5: Message' });
    await waitFor(() => expect((screen.getByRole('button', { name: 'Save agent' }) as HTMLButtonElement).disabled).toBe(false));
    fireEvent.change(within(second).getByLabelText('Text'), { target: { value: 'One more thing.' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save agent' }));
    await screen.findByText(/^Saved\./);
    expect(fake.callsOf('update_agent')[0]?.args).toEqual({
      agentId: 'tpl_legacy',
      name: 'Friendly intro',
      accountId: 'acc_1',
      connectionNote: 'Hi {{firstName}}',
      messages: [
        { text: 'Thanks for connecting!', delayHours: 1 },
        { text: 'One more thing.', delayHours: 0 },
      ],
    });
    expect(screen.queryByRole('note', { name: undefined })?.textContent ?? '').not.toContain('saved as steps');

    fireEvent.click(screen.getByRole('button', { name: 'Add variant B to step 1' }));
    expect(screen.getAllByRole('note').some((n) => n.textContent?.includes('With these changes it is saved as steps'))).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Save agent' }));
    await waitFor(() => expect(fake.callsOf('update_agent')).toHaveLength(2));
    const sent = fake.callsOf('update_agent')[1]?.args as { steps: StepInput[]; messages?: unknown };
    expect(sent.messages).toBeUndefined();
    // The derived ids go back, so the leads stay at their steps.
    expect(sent.steps.map((s) => s.id)).toEqual(['stp_0123456789abcdef', 'stp_1123456789abcdef']);
    expect(sent.steps[0]).toEqual({ id: 'stp_0123456789abcdef', kind: 'invite', note: 'Hi {{firstName}}', variants: [{ note: null }] });
  });

  it('creates a new agent as steps, from a starter sequence', async () => {
    const fake = fakeTools(editorTools(stepsAgent(), { create_agent: (args) => ({ ...stepsAgent(), id: 'tpl_new', name: args.name }) }));
    renderWith(<AgentEditorPage agentId={null} />, fake.callTool);
    fireEvent.change(screen.getByLabelText('Name'), { target: { value: 'Fresh' } });
    await waitFor(() => expect((screen.getByLabelText('Sending account') as HTMLSelectElement).value).toBe('acc_1'));
    fireEvent.click(screen.getByRole('button', { name: 'Create agent' }));
    await waitFor(() => expect(fake.callsOf('create_agent')).toHaveLength(1));
    const args = fake.callsOf('create_agent')[0]?.args as { steps: StepInput[]; idempotencyKey: string };
    expect(args.idempotencyKey).toMatch(/^[0-9a-f]{32}$/);
    expect(args.steps.map((s) => s.kind)).toEqual(['invite', 'if']);
    expect(args.steps.some((s) => 'id' in s)).toBe(false);
  });

  it('previews the saved sequence for a lead on each path, variants side by side', async () => {
    const fake = fakeTools(editorTools());
    renderWith(<AgentEditorPage agentId="tpl_steps" />, fake.callTool);
    const region = await screen.findByRole('region', { name: 'Rendered sequence' });
    expect(fake.callsOf('preview_agent')[0]?.args).toEqual({ agentId: 'tpl_steps', leadId: 'lead_1' });
    const paths = screen.getByRole('group', { name: 'Path' });
    expect(within(paths).getAllByRole('radio')).toHaveLength(2);
    expect(within(region).getByText('Hi Grace')).toBeTruthy();
    expect(within(region).getByText('Hello Grace')).toBeTruthy();
    expect(within(region).getByText('Great to meet you.')).toBeTruthy();
    expect(within(region).queryByText('Hi Grace, one idea.')).toBeNull();
    fireEvent.click(within(paths).getByLabelText('Not accepted after 7 days'));
    expect(within(region).getByText('Hi Grace, one idea.')).toBeTruthy();
    expect(within(region).getByText('An idea for Navy Labs')).toBeTruthy();
    expect(within(region).queryByText('Great to meet you.')).toBeNull();
    // An unsaved change: the preview follows it, through the unsaved sequence's preview, once typing rests.
    fireEvent.change(within(group('Step 2: Invitation')).getByLabelText('Note, variant A'), { target: { value: 'Changed for {{firstName}}' } });
    expect(screen.getAllByRole('note').some((n) => n.textContent?.includes('follows the sequence as you write it'))).toBe(true);
    await waitFor(() => expect(within(screen.getByRole('region', { name: 'Rendered sequence' })).getByText('Changed for Grace')).toBeTruthy());
    const asked = fake.callsOf('preview_agent_draft').at(-1)?.args as { agentId: string; leadId: string; steps: StepInput[] };
    expect(asked).toMatchObject({ agentId: 'tpl_steps', leadId: 'lead_1' });
    expect(asked.steps[1]).toMatchObject({ kind: 'invite', note: 'Changed for {{firstName}}' });
    expect(fake.callsOf('update_agent')).toHaveLength(0);
  });
});

function stats(): AgentStats {
  const zero = { sent: 0, accepted: 0, replied: 0, skipped: 0 };
  return {
    agentId: 'tpl_steps',
    steps: [
      { stepId: 'stp_visit0000000000A', kind: 'visit', path: 'steps[0]', variants: [{ variant: 'A', ...zero, sent: 10 }] },
      {
        stepId: 'stp_invite000000000A',
        kind: 'invite',
        path: 'steps[1]',
        variants: [
          { variant: 'A', sent: 5, accepted: 2, replied: 1, skipped: 0 },
          { variant: 'B', sent: 4, accepted: 3, replied: 0, skipped: 1 },
        ],
      },
      { stepId: 'stp_ifaccepted00000A', kind: 'if', path: 'steps[2]', variants: [{ variant: 'A', ...zero, sent: 9 }] },
      { stepId: 'stp_wait00000000000A', kind: 'wait', path: 'steps[2].then[0]', variants: [{ variant: 'A', ...zero, sent: 5 }] },
      {
        stepId: 'stp_message00000000A',
        kind: 'message',
        path: 'steps[2].then[1]',
        variants: [
          { variant: 'A', sent: 2, accepted: 0, replied: 1, skipped: 1 },
          { variant: 'B', sent: 2, accepted: 0, replied: 0, skipped: 0 },
        ],
      },
      { stepId: 'stp_withdraw0000000A', kind: 'withdraw', path: 'steps[2].else[0]', variants: [{ variant: 'A', ...zero }] },
      { stepId: 'stp_inmail000000000A', kind: 'inmail', path: 'steps[2].else[1]', variants: [{ variant: 'A', ...zero, skipped: 3 }] },
    ],
  };
}

describe('the step funnel', () => {
  const funnelTools: ToolHandlers = {
    get_agent_stats: () => stats(),
    get_agent: () => stepsAgent(),
    get_skip_reasons: () => ({
      agentId: 'tpl_steps',
      skips: [
        { stepId: 'stp_inmail000000000A', variant: 'A', reason: 'no_sales_navigator', count: 2 },
        { stepId: 'stp_inmail000000000A', variant: 'A', reason: 'inmail_unreachable', count: 1 },
        { stepId: 'stp_message00000000A', variant: 'A', reason: 'not_connected', count: 1 },
      ],
    }),
  };
  const rowOf = (table: HTMLElement, step: string, n: number) =>
    within(
      within(table)
        .getByRole('rowheader', { name: new RegExp(`^${step}`) })
        .closest('tbody') as HTMLElement,
    )
      .getAllByRole('row')
      [n]?.querySelectorAll('td');

  it('counts each step and variant with its rates, under its branch, and says why steps were skipped', async () => {
    const fake = fakeTools(funnelTools);
    renderWith(<StepFunnel agentId="tpl_steps" campaignId="cmp_1" />, fake.callTool);
    const table = await screen.findByRole('table', { name: /Each step of the agent/ });
    await within(table).findByText('Hi {{firstName|there}}');
    expect(fake.callsOf('get_agent_stats')[0]?.args).toEqual({ agentId: 'tpl_steps', campaignId: 'cmp_1' });
    expect(fake.callsOf('get_skip_reasons')[0]?.args).toEqual({ agentId: 'tpl_steps', campaignId: 'cmp_1' });
    const invB = [...(rowOf(table, 'Step 2: Invitation', 1) ?? [])].map((c) => c.textContent);
    expect(invB).toEqual(['BHello {{firstName|there}}', '4', '375.0%', '00.0%', '1']);
    expect(within(table).getByRole('rowheader', { name: /^Step 3: If accepted within 7 days/ })).toBeTruthy();
    expect(within(table).getByRole('rowheader', { name: /^Step 5: Message/ }).textContent).toContain('In step 3, accepted within 7 days');
    const msgA = [...(rowOf(table, 'Step 5: Message', 0) ?? [])].map((c) => c.textContent);
    expect(msgA.slice(1, 4)).toEqual(['2', '—', '150.0%']);
    const inmail = within(table).getByRole('list', { name: 'Why step 7 was skipped' });
    expect(
      within(inmail)
        .getAllByRole('listitem')
        .map((l) => l.textContent),
    ).toEqual(['2 · no Sales Navigator on the account', '1 · takes no InMail']);
    // A visit has no variant letter and no rates.
    expect([...(rowOf(table, 'Step 1: Visit the profile', 0) ?? [])].map((c) => c.textContent)).toEqual(['—', '10', '—', '—', '0']);
  });

  it('says what it needs where the connection does not offer get_agent_stats, and calls nothing', () => {
    const fake = fakeTools(funnelTools);
    renderWith(
      <OfferedToolsProvider initial={new Set(['get_campaign'])}>
        <StepFunnel agentId="tpl_steps" campaignId="cmp_1" />
      </OfferedToolsProvider>,
      fake.callTool,
    );
    expect(screen.getByText(/needs get_agent_stats/)).toBeTruthy();
    expect(fake.calls).toEqual([]);
  });

  it('in a view offering the stats but not the skip reasons, counts without asking why', async () => {
    const fake = fakeTools(funnelTools);
    renderWith(
      <OfferedToolsProvider initial={new Set(['get_agent_stats', 'get_agent'])}>
        <StepFunnel agentId="tpl_steps" campaignId="cmp_1" />
      </OfferedToolsProvider>,
      fake.callTool,
    );
    await screen.findByText('Hello {{firstName|there}}');
    expect(fake.callsOf('get_skip_reasons')).toEqual([]);
    expect(screen.queryByRole('list', { name: /was skipped/ })).toBeNull();
  });
});

describe('a campaign’s senders', () => {
  const pages: ToolHandlers['list_accounts'] = (args) =>
    args.cursor === 'p2'
      ? { accounts: [account(3, { name: 'Third' })], nextCursor: null }
      : { accounts: [account(1, { name: 'First' }), account(2, { name: 'Second' })], nextCursor: 'p2' };

  it('names the senders from every page of accounts and saves a change through update_campaign', async () => {
    const fake = fakeTools({
      list_accounts: pages,
      update_campaign: (args) => campaign({ senderAccountIds: args.senderAccountIds ?? [] }),
      list_agents: () => ({ agents: [stepsAgent()], nextCursor: null }),
    });
    renderWith(<CampaignSenders campaign={campaign({ senderAccountIds: ['acc_2'] })} />, fake.callTool);
    await screen.findByText((_, el) => el?.tagName === 'P' && el.textContent === 'Sends from 1 account: Second.');
    expect(document.body.textContent).not.toContain('acc_2');
    const third = await screen.findByRole('checkbox', { name: /Third/ });
    expect((screen.getByRole('checkbox', { name: /Second/ }) as HTMLInputElement).checked).toBe(true);
    fireEvent.click(third);
    fireEvent.click(screen.getByRole('button', { name: 'Save senders' }));
    await screen.findByText('Senders saved.');
    expect(fake.callsOf('update_campaign')[0]?.args).toEqual({ campaignId: 'cmp_1', senderAccountIds: ['acc_2', 'acc_3'] });
  });

  it('follows the stored senders while nothing is ticked, keeps ticks made during a save, and calls only what was sent saved', async () => {
    const fake = fakeTools({
      list_accounts: pages,
      update_campaign: (args) => campaign({ senderAccountIds: args.senderAccountIds ?? [] }),
      list_agents: () => ({ agents: [stepsAgent()], nextCursor: null }),
    });
    // The save's answer waits until the test lets it go.
    const { callTool, release: answer } = holdAnswers(fake.callTool, 'update_campaign');
    let store: (ids: string[]) => void = () => undefined;
    renderWith(<PolledSenders initial={['acc_2']} onStore={(set) => (store = set)} />, callTool);
    const box = (name: RegExp) => screen.getByRole('checkbox', { name }) as HTMLInputElement;
    await screen.findByRole('checkbox', { name: /Third/ });
    // Another writer's change, with nothing ticked here, replaces the ticks.
    act(() => store(['acc_1']));
    expect([box(/First/).checked, box(/Second/).checked]).toEqual([true, false]);
    fireEvent.click(box(/Third/));
    fireEvent.click(screen.getByRole('button', { name: 'Save senders' }));
    await waitFor(() => expect(fake.callsOf('update_campaign')).toHaveLength(1));
    // Ticked while the save is on its way: the answer and the next read leave it ticked, unsaved.
    fireEvent.click(box(/Second/));
    const save = screen.getByRole('button', { name: 'Save senders' }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    await act(async () => answer());
    // The save is done when its button comes back.
    await waitFor(() => expect(save.disabled).toBe(false));
    act(() => store(['acc_1', 'acc_3']));
    expect([box(/First/).checked, box(/Second/).checked, box(/Third/).checked]).toEqual([true, true, true]);
    expect(screen.queryByText('Senders saved.')).toBeNull();
    expect(save.disabled).toBe(false);
    // Taken back to what was saved, the form says so again.
    fireEvent.click(box(/Second/));
    await screen.findByText('Senders saved.');
  });

  it('locks the senders of a running campaign, and says how to change them', async () => {
    const fake = fakeTools({ list_accounts: pages, list_agents: () => ({ agents: [stepsAgent()], nextCursor: null }), get_agent: () => stepsAgent() });
    renderWith(<CampaignSenders campaign={campaign({ status: 'CAMPAIGN_IN_PROGRESS' })} />, fake.callTool);
    const first = await screen.findByRole('checkbox', { name: /First/ });
    // Disabled through its fieldset, as a browser has it.
    expect(first.matches(':disabled')).toBe(true);
    expect((screen.getByRole('button', { name: 'Save senders' }) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByRole('note').textContent).toContain('Pause the campaign to change them');
  });

  it('explains a 409: the campaign started since the page last looked', async () => {
    const fake = fakeTools({
      list_accounts: pages,
      update_campaign: () => ({ isError: true, error: { code: 'conflict', message: 'Campaign cmp_1 is running; pause it (pause_campaign) first.' } }),
      list_agents: () => ({ agents: [stepsAgent()], nextCursor: null }),
      get_agent: () => stepsAgent(),
    });
    renderWith(<CampaignSenders campaign={campaign({ status: 'CAMPAIGN_PAUSED' })} />, fake.callTool);
    fireEvent.click(await screen.findByRole('checkbox', { name: /First/ }));
    fireEvent.click(screen.getByRole('button', { name: 'Save senders' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('a running campaign keeps its senders: pause it, change the senders, then start it again');
  });
});
