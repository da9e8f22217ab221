// biome-ignore-all lint/suspicious/noThenProperty: an if step's branches are named then and else (docs/sequences.md); these objects are never awaited.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Settings } from '../../src/config.js';
import type { Step } from '../../src/core/agents/steps.js';
import { ensureDemo } from '../../src/core/seed/demo.js';
import { recordAccepted, recordReplied, recordStep } from '../../src/core/sequences/store.js';
import { silentLogger } from '../../src/log.js';
import { createContext, startServer, type RunningServer } from '../../src/server.js';
import { DEFAULT_UI_DIR } from '../../src/web/mount.js';
import { requireTool } from '../optional.js';
import { hasChromium, launchChromium, openDashboard, screenshotDir, seriousViolations } from './browser.js';

/**
 * The sequence editor and a campaign's step funnel in Debian's Chromium against the real server
 * (demo workspace, no engine: the counts are written through the step-runner's own verbs):
 * a branching sequence with variants built by mouse and keyboard, a refused save shown at the
 * step it names, the saved sequence previewed on each path, the demo's agent (written as a note
 * and messages) edited and kept in that shape, and a campaign's senders and per-step funnel.
 * axe checks every state.
 */
describe.skipIf(!requireTool('Chromium (/usr/bin/chromium)', hasChromium))('the sequence editor and the step funnel in a browser', () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  let apiKey = '';
  let agentId = '';
  const scratch = mkdtempSync(join(tmpdir(), 'outreach-sequences-'));
  const shots = screenshotDir(join(scratch, 'shots'));
  const consoleErrors: string[] = [];

  const app = (path = '/') => `${server.url}/app${path}`;
  const heading = (name: string | RegExp) => page.getByRole('heading', { level: 1, name }).waitFor();
  const expectAccessible = async () => expect(await seriousViolations(page)).toEqual([]);
  const shot = (name: string, target: Page | Locator = page) => target.screenshot({ path: join(shots, `${name}.png`) });
  const step = (name: string) => page.getByRole('group', { name, exact: true });
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}/public/v1${path}`, {
      method,
      headers: { 'X-API-Key': apiKey, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_UI_DIR, 'index.html'))) throw new Error('The dashboard is not built: run `npm run build` first.');
    const settings: Settings = { host: '127.0.0.1', port: 0, dbPath: join(scratch, 'outreach.db'), env: 'development', simSpeed: 1, config: {} };
    const ctx = createContext(settings, silentLogger());
    apiKey = ensureDemo(ctx) ?? '';
    server = await startServer(settings, ctx.log, ctx, { engine: false });
    browser = await launchChromium();
    ({ page } = await openDashboard(browser, server, { deviceScaleFactor: 1, errors: consoleErrors, console: true }));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('builds a branching sequence with variants, shows a refused save at its step, and creates the agent', async () => {
    await page.goto(app('/agents/new'));
    await heading('New agent');
    await page.getByLabel('Name', { exact: true }).fill('Branching intro');
    // The starter: an invitation, then if accepted, a wait and a message, else a withdrawal.
    for (const name of ['Step 1: Invitation', 'Step 2: Branch on a condition', 'Step 3: Wait', 'Step 4: Message', 'Step 5: Withdraw the invitation']) {
      await step(name).waitFor();
    }
    // A visit, added at the end, then moved first: once by mouse, once from the keyboard (the focus stays on the button).
    await page.getByLabel('Kind of step to add to the sequence').selectOption('visit');
    await page.getByRole('button', { name: 'Add step to the sequence' }).click();
    await page.getByRole('button', { name: 'Move step 6 up' }).click();
    await expect.poll(() => page.evaluate('document.activeElement?.getAttribute("aria-label")')).toBe('Move step 2 up');
    await page.keyboard.press('Enter');
    await step('Step 1: Visit the profile').waitFor();

    // The invitation gets a second note (variant B), side by side with the first.
    const invite = step('Step 2: Invitation');
    await invite.getByLabel('Note', { exact: true }).fill('Hi {{firstName|there}}, I enjoyed reading about {{companyName|your team}}.');
    await invite.getByRole('button', { name: 'Add variant B to step 2' }).click();
    await invite.getByLabel('Note, variant B').fill('Hello {{firstName|there}}, shall we connect?');
    expect(await invite.getByLabel('Note, variant A').inputValue()).toContain('I enjoyed reading');

    // In the accepted branch: a variant B of the message.
    const accepted = page.getByRole('group', { name: 'Step 3: Then · Accepted within 21 days' });
    const message = step('Step 5: Message');
    await message.getByLabel('Text', { exact: true }).fill('Thanks for connecting, {{firstName|there}}! Would a short call help?');
    await message.getByRole('button', { name: 'Add variant B to step 5' }).click();
    await message.getByLabel('Text, variant B').fill('Great to be connected, {{firstName|there}}.');
    // Then an if inside the branch: only those who do not reply within 3 days get a follow-up.
    await accepted.getByLabel('Kind of step to add to step 3, accepted within 21 days').selectOption('if');
    await accepted.getByRole('button', { name: 'Add step to step 3, accepted within 21 days' }).click();
    const replied = step('Step 6: Branch on a condition');
    await replied.getByLabel('Condition').selectOption('replied');
    await replied.getByLabel('Within (hours)').fill('72');
    const noReply = page.getByRole('group', { name: 'Step 6: Else · No reply after 3 days' });
    await noReply.getByLabel('Kind of step to add to step 6, no reply after 3 days').selectOption('message');
    await noReply.getByRole('button', { name: 'Add step to step 6, no reply after 3 days' }).click();
    await step('Step 7: Message').getByLabel('Text', { exact: true }).fill('Any thoughts, {{firstName|there}}?');

    // In the branch for those who do not accept: an InMail after the withdrawal.
    const declined = page.getByRole('group', { name: 'Step 3: Else · Not accepted after 21 days' });
    await declined.getByLabel('Kind of step to add to step 3, not accepted after 21 days').selectOption('inmail');
    await declined.getByRole('button', { name: 'Add step to step 3, not accepted after 21 days' }).click();
    const inmail = step('Step 9: InMail');
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe(await inmail.getByLabel('Subject').getAttribute('id'));
    await inmail.getByLabel('Subject').fill('An idea for {{companyName|your team}}');
    await inmail.getByLabel('Text').fill('Hi {{firstName|there}}, I tried to connect: here is the idea in two lines.');
    await page.getByText('9 of 25 steps').waitFor();
    await expectAccessible();
    await shot('agent-sequence', page.getByRole('form', { name: 'Agent sequence' }));

    // A placeholder the server does not know: it refuses the save, and the error shows at step 5's variant B, which takes the focus.
    const variantB = message.getByLabel('Text, variant B');
    await variantB.fill('Great to be connected, {{nickname}}.');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('alert').filter({ hasText: 'the fields to fix are marked' }).waitFor();
    expect(await variantB.getAttribute('aria-invalid')).toBe('true');
    await message.getByText(/^Unknown placeholder "\{\{nickname\}\}"/).waitFor();
    expect(await page.evaluate('document.activeElement?.id')).toBe(await variantB.getAttribute('id'));
    expect(new URL(page.url()).pathname).toBe('/app/agents/new');
    await expectAccessible();
    await shot('agent-validation', message);

    await variantB.fill('Great to be connected, {{firstName|there}}.');
    expect(await variantB.getAttribute('aria-invalid')).toBeNull();
    await page.getByRole('button', { name: 'Create agent' }).click();
    await heading('Branching intro');
    agentId = new URL(page.url()).pathname.split('/').at(-1) ?? '';
    expect(agentId).toMatch(/^tpl_/);

    const saved = (await api('GET', `/agents/${agentId}`)).body;
    const kinds = (steps: Step[]): unknown[] => steps.map((s) => (s.kind === 'if' ? [s.condition, s.withinHours, kinds(s.then), kinds(s.else)] : s.kind));
    expect(kinds(saved.steps)).toEqual(['visit', 'invite', ['accepted', 504, ['wait', 'message', ['replied', 72, [], ['message']]], ['withdraw', 'inmail']]]);
    expect(saved.steps[1].variants).toEqual([{ note: 'Hello {{firstName|there}}, shall we connect?' }]);
    expect(saved.steps[2].then[1].variants).toEqual([{ text: 'Great to be connected, {{firstName|there}}.' }]);
  }, 90_000);

  it('keeps the branches inside a 390 px window: nested steps wrap, their buttons and the condition in view', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await step('Step 7: Message').waitFor();
      // Step 7 is two branches deep (step 3's then, step 6's else); step 6 is the if inside a branch.
      await expect.poll(() => page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      const right = (l: Locator) => l.evaluate((el) => Math.round(el.getBoundingClientRect().right));
      for (const n of [5, 6, 7, 9]) {
        const remove = page.getByRole('button', { name: `Remove step ${n}`, exact: true });
        await remove.scrollIntoViewIfNeeded();
        expect(await right(remove), `Remove step ${n}`).toBeLessThanOrEqual(390);
      }
      const condition = step('Step 6: Branch on a condition').getByLabel('Condition');
      expect(await right(condition)).toBeLessThanOrEqual(390);
      expect(await right(page.getByLabel('Kind of step to add to step 6, no reply after 3 days'))).toBeLessThanOrEqual(390);
      await expectAccessible();
      await shot('agent-sequence-390', page.getByRole('form', { name: 'Agent sequence' }));
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('previews each path for a lead, then keeps the step ids on the next save', async () => {
    const preview = page.getByRole('region', { name: 'Rendered sequence' });
    await preview.waitFor();
    const paths = page.getByRole('group', { name: 'Path' });
    // Three ways through: accepted then replied (the reply ends it), accepted without a reply, not accepted.
    expect(await paths.getByRole('radio').count()).toBe(3);
    await page.getByLabel('Lead', { exact: true }).selectOption({ label: 'Ada Lovelace' });
    await preview.getByText(/what Ada Lovelace gets$/).waitFor();
    await paths.getByLabel('Accepted within 21 days, then no reply after 3 days').check();
    await preview.getByText('Variant B', { exact: true }).first().waitFor();
    const text = (await preview.textContent()) ?? '';
    // Ada Lovelace of Analytical Engines, a lead of the demo campaign: every placeholder filled.
    expect(text).toContain('Hi Ada, I enjoyed reading about Analytical Engines.');
    expect(text).toContain('Hello Ada, shall we connect?');
    expect(text).toContain('Thanks for connecting, Ada! Would a short call help?');
    expect(text).toContain('Great to be connected, Ada.');
    expect(text).toContain('Any thoughts, Ada?');
    expect(text).not.toContain('{{');
    expect(text).not.toContain('An idea for');
    await expectAccessible();
    await shot('agent-preview', page.getByRole('region', { name: 'Preview' }));

    await paths.getByLabel('Not accepted after 21 days').check();
    await preview.getByText('An idea for Analytical Engines').waitFor();
    const other = (await preview.textContent()) ?? '';
    expect(other).toContain('withdraw the invitation');
    expect(other).not.toContain('Thanks for connecting');
    await paths.getByLabel('Accepted within 21 days, then replied within 3 days').check();
    await preview.getByText('The reply ends the sequence; the inbox takes over.').waitFor();

    // The preview is live: a change not saved yet is rendered for the lead a moment after typing stops.
    await paths.getByLabel('Accepted within 21 days, then no reply after 3 days').check();
    const note = step('Step 2: Invitation').getByLabel('Note, variant A');
    const savedNote = await note.inputValue();
    await note.fill('Hi {{firstName}}, a live preview of {{companyName}}.');
    await page.getByRole('note').filter({ hasText: 'The preview follows the sequence as you write it' }).waitFor();
    await preview.getByText('Hi Ada, a live preview of Analytical Engines.').waitFor();
    // A word a save would refuse shows why, and nothing was saved meanwhile.
    await note.fill('Hi {{nickname}}');
    await page.getByText(/The preview waits for a sequence that could be saved/).waitFor();
    expect(JSON.stringify((await api('GET', `/agents/${agentId}`)).body.steps)).not.toContain('live preview');
    await note.fill(savedNote);

    // Removing the visit and saving keeps every other step's id, so leads at them stay there.
    const before = (await api('GET', `/agents/${agentId}`)).body.steps as Step[];
    await page.getByRole('button', { name: 'Remove step 1' }).click();
    await step('Step 1: Invitation').waitFor();
    await page.getByRole('note').filter({ hasText: 'The preview follows the sequence as you write it' }).waitFor();
    await page.getByRole('button', { name: 'Save agent' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const after = (await api('GET', `/agents/${agentId}`)).body.steps as Step[];
    expect(after.map((s) => s.id)).toEqual(before.slice(1).map((s) => s.id));
    expect(JSON.stringify(after)).toBe(JSON.stringify(before.slice(1)));
    await expectAccessible();
  }, 60_000);

  it('edits the demo agent, written as a note and messages, and keeps it in that shape', async () => {
    await page.goto(app('/agents/tpl_demo'));
    await heading('Friendly intro');
    // It reads as steps: the invitation, then if accepted (the invitation timeout), messages after waits, else a withdrawal.
    await step('Step 1: Invitation').waitFor();
    await page.getByRole('group', { name: 'Step 2: Then · Accepted within 21 days' }).waitFor();
    await step('Step 6: Message').getByLabel('Text', { exact: true }).fill('A last note, {{firstName|there}}: the demo is two minutes.');
    await page.getByRole('button', { name: 'Save agent' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const agent = (await api('GET', '/agents/tpl_demo')).body;
    expect(agent.messages).toEqual([
      { text: 'Thanks for connecting, {{firstName}}! Would a short call next week be useful?', delayHours: 1 },
      { text: 'A last note, {{firstName|there}}: the demo is two minutes.', delayHours: 48 },
    ]);
    // Still written as a note and messages: an API client may go on writing those fields.
    expect((await api('PATCH', '/agents/tpl_demo', { messages: agent.messages })).status).toBe(200);
    // A variant goes beyond that shape: the page says the agent will be saved as steps.
    await step('Step 1: Invitation').getByRole('button', { name: 'Add variant B to step 1' }).click();
    await page.getByRole('note').filter({ hasText: 'With these changes it is saved as steps' }).waitFor();
    await expectAccessible();
  });

  it('shows a campaign’s senders by name, saves them, locks them while it runs, and counts each step and variant', async () => {
    const second = await api('POST', '/accounts', { name: 'Second Sender', warmUp: false });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    const campaign = (await api('POST', '/campaigns', { name: 'Sequence test', assignedTemplateId: agentId })).body;
    const leads: string[] = [];
    for (const name of ['ada', 'bob', 'cy', 'di', 'ed']) {
      const added = await api('POST', `/campaigns/${campaign.id}/leads`, { networkUrl: `https://www.linkedin.com/in/${name}-sequence`, fullName: name });
      expect(added.body.status).toBe('created');
      leads.push(added.body.leadId);
    }
    // What the step runner records as leads go through the steps.
    const steps = (await api('GET', `/agents/${agentId}`)).body.steps as Step[];
    const [invite, branch] = steps as [Step, Extract<Step, { kind: 'if' }>];
    const message = branch.then[1] as Step;
    const ctx = server.ctx;
    const base = { campaignId: campaign.id, agentId };
    leads.forEach((leadId, i) => {
      recordStep(ctx, { ...base, leadId, stepId: invite.id, kind: 'invite', variant: i % 2 === 0 ? 'A' : 'B', event: 'sent', at: 1_000 + i });
    });
    recordAccepted(ctx, { leadId: leads[0] as string, at: 2_000 });
    recordAccepted(ctx, { leadId: leads[1] as string, at: 2_000 });
    recordAccepted(ctx, { leadId: leads[2] as string, at: 2_000 });
    recordStep(ctx, { ...base, leadId: leads[0] as string, stepId: message.id, kind: 'message', variant: 'A', event: 'sent', at: 3_000 });
    recordStep(ctx, { ...base, leadId: leads[1] as string, stepId: message.id, kind: 'message', variant: 'B', event: 'sent', at: 3_000 });
    recordStep(ctx, {
      ...base,
      leadId: leads[3] as string,
      stepId: message.id,
      kind: 'message',
      variant: 'A',
      event: 'skipped',
      reason: 'not_connected',
      at: 3_000,
    });
    recordReplied(ctx, { leadId: leads[1] as string, at: 4_000 });

    await page.goto(app(`/campaigns/${campaign.id}`));
    await heading('Sequence test');
    const senders = page.getByRole('form', { name: 'Senders' });
    await senders.getByText('No senders chosen: the campaign sends from the account of its agent Branching intro, Demo Sender.').waitFor();
    await senders.getByRole('checkbox', { name: /Demo Sender/ }).check();
    await senders.getByRole('checkbox', { name: /Second Sender/ }).check();
    await senders.getByRole('button', { name: 'Save senders' }).click();
    await senders.getByText('Senders saved.').waitFor();
    await senders.getByText('Sends from 2 accounts: Demo Sender, Second Sender.').waitFor();
    expect((await api('GET', `/campaigns/${campaign.id}`)).body.senderAccountIds).toEqual(['acc_demo', second.body.account.id]);

    const funnel = page.getByRole('table', { name: /Each step of the agent and its variants/ });
    await funnel.waitFor();
    /** A variant's row: its cells' texts (the letter and text, sent, accepted and rate, replied and rate, skipped). */
    const cells = async (stepName: string, n: number) =>
      (await funnel.locator('tbody').filter({ hasText: stepName }).getByRole('row').nth(n).getByRole('cell').allTextContents()).map((t) => t.trim());
    expect(await cells('Step 1: Invitation', 0)).toEqual([
      'AHi {{firstName|there}}, I enjoyed reading about {{companyName|your team}}.',
      '3',
      '266.7%',
      '00.0%',
      '0',
    ]);
    expect(await cells('Step 1: Invitation', 1)).toEqual(['BHello {{firstName|there}}, shall we connect?', '2', '150.0%', '00.0%', '0']);
    // The message, in the accepted branch: A was skipped once (not a connection), B was replied to.
    const messageGroup = funnel.locator('tbody').filter({ hasText: 'Step 4: Message' });
    await messageGroup.getByText('In step 2, accepted within 21 days').waitFor();
    expect(await cells('Step 4: Message', 0)).toEqual([
      'AThanks for connecting, {{firstName|there}}! Would a short call help?',
      '1',
      '—',
      '00.0%',
      '1' + '1 · not a connection',
    ]);
    await messageGroup.getByRole('list', { name: 'Why step 4 variant A was skipped' }).getByText('1 · not a connection').waitFor();
    expect(await cells('Step 4: Message', 1)).toEqual(['BGreat to be connected, {{firstName|there}}.', '1', '—', '1100.0%', '0']);
    await expectAccessible();
    await shot('campaign-steps', page.getByRole('region', { name: 'Steps and variants' }));
    await shot('campaign-senders', senders);

    // Running, the senders are locked, and the page says how to change them.
    expect((await api('POST', `/campaigns/${campaign.id}/start`)).status).toBe(200);
    await senders.getByText('The campaign is running, so its senders are locked', { exact: false }).waitFor({ timeout: 20_000 });
    expect(await senders.getByRole('checkbox', { name: /Second Sender/ }).isDisabled()).toBe(true);
    await expectAccessible();
    expect((await api('POST', `/campaigns/${campaign.id}/pause`)).status).toBe(200);
  }, 60_000);

  it('raises no console error on any page', () => {
    expect(consoleErrors).toEqual([]);
  });
});
