// @vitest-environment jsdom
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { ImportPage } from '../dashboard/pages/Import.js';
import { InboxPage } from '../dashboard/pages/Inbox.js';
import { KeysPage } from '../dashboard/pages/Keys.js';
import { AccountsPage } from '../dashboard/pages/Accounts.js';
import { ExclusionsPage } from '../dashboard/pages/Exclusions.js';
import { WebhooksPage } from '../dashboard/pages/Webhooks.js';
import type { ApiKey, ImportPreview, ImportStatus } from '../shared/types.js';
import { SettingsPage } from '../dashboard/pages/Settings.js';
import { campaign } from './fixtures.js';
import { fakeCallTool, holdAnswers, renderWith } from './render.js';

afterEach(cleanup);

const summary = { total: 3, created: 2, duplicate: 1, excluded: 0, validation_error: 0, insufficient_credits: 0, failed: 0 };

describe('Import page', () => {
  it('previews the mapping and dry-run counts, then polls get_import until the bar is full', async () => {
    let polls = 0;
    const fake = fakeCallTool({
      list_campaigns: () => ({ campaigns: [campaign()], nextCursor: null }),
      preview_import: () =>
        ({
          delimiter: ',',
          columns: [
            { header: 'LinkedIn', field: 'networkUrl' },
            { header: 'Name', field: 'fullName' },
            { header: 'Shoe size', field: null },
          ],
          unmappedColumns: ['Shoe size'],
          summary,
          creditsNeeded: 2,
          creditsAvailable: 50,
          shortOfCredits: 0,
          rows: [{ line: 3, status: 'duplicate', message: 'Already in this campaign.' }],
          rejectedCsv: 'LinkedIn,Name,Shoe size,line,status,reason\r\n',
        }) satisfies ImportPreview,
      start_import: () => ({ importId: 'imp_1' }),
      get_import: (): ImportStatus => {
        polls += 1;
        const done = polls >= 2;
        return {
          importId: 'imp_1',
          campaignId: 'cmp_1',
          status: done ? 'done' : 'running',
          rowsTotal: 3,
          rowsDone: done ? 3 : 1,
          summary,
          creditsCharged: done ? 2 : 0,
        };
      },
    });
    renderWith(<ImportPage />, fake.callTool);
    await screen.findByRole('option', { name: 'Founders in Berlin' });
    const file = new File(['LinkedIn,Name,Shoe size\nhttps://www.linkedin.com/in/a,A,42\n'], 'leads.csv', { type: 'text/csv' });
    fireEvent.change(screen.getByLabelText(/CSV file/), { target: { files: [file] } });
    await screen.findByRole('heading', { name: 'Preview of leads.csv' });
    expect(fake.callsOf('preview_import')[0]?.args).toEqual({ campaignId: 'cmp_1', csv: 'LinkedIn,Name,Shoe size\nhttps://www.linkedin.com/in/a,A,42\n' });
    expect((screen.getByLabelText('Field for column LinkedIn') as HTMLSelectElement).value).toBe('networkUrl');
    expect((screen.getByLabelText('Field for column Shoe size') as HTMLSelectElement).value).toBe('');
    expect(within(screen.getByLabelText('Dry-run counts')).getByText('Duplicates').nextSibling?.textContent).toBe('1');

    fireEvent.change(screen.getByLabelText('Field for column Shoe size'), { target: { value: 'personalization' } });
    await waitFor(() => expect(fake.callsOf('preview_import')).toHaveLength(2));
    expect(fake.callsOf('preview_import')[1]?.args.map).toEqual({ 'Shoe size': 'personalization' });

    fireEvent.click(await screen.findByRole('button', { name: 'Import 3 rows' }));
    const bar = (await screen.findByRole('progressbar')) as HTMLProgressElement;
    expect(fake.callsOf('start_import')[0]?.args).toEqual({ campaignId: 'cmp_1', csv: expect.any(String), map: { 'Shoe size': 'personalization' } });
    await screen.findByText(/Import finished/, {}, { timeout: 5_000 });
    expect(bar.value).toBe(3);
    expect(bar.max).toBe(3);
    expect(screen.getByText(/2 credits charged/)).toBeTruthy();
  });

  it('warns when credits fall short, says what to do, and lists the rows not created with their CSV', async () => {
    const fake = fakeCallTool({
      list_campaigns: () => ({ campaigns: [campaign()], nextCursor: null }),
      preview_import: () =>
        ({
          delimiter: ',',
          columns: [{ header: 'URL', field: 'networkUrl' }],
          unmappedColumns: [],
          summary: { total: 3000, created: 2999, duplicate: 0, excluded: 0, validation_error: 1, insufficient_credits: 0, failed: 0 },
          creditsNeeded: 2999,
          creditsAvailable: 97,
          shortOfCredits: 2903,
          rows: [{ line: 7, status: 'validation_error', field: 'networkUrl', message: 'networkUrl is missing.' }],
          rejectedCsv: 'URL,line,status,reason\r\n,7,validation_error,networkUrl is missing.\r\n',
          stoppedAt: { line: 3002, message: 'Line 3002 is malformed: a quote opened there is never closed.' },
        }) satisfies ImportPreview,
    });
    renderWith(<ImportPage />, fake.callTool);
    await screen.findByRole('option', { name: 'Founders in Berlin' });
    fireEvent.change(screen.getByLabelText(/CSV file/), { target: { files: [new File(['URL\n'], 'big.csv')] } });
    await screen.findByRole('heading', { name: 'Preview of big.csv' });
    const credits = screen.getByLabelText('Credits');
    expect(within(credits).getByText('Credits needed').nextSibling?.textContent).toBe((2999).toLocaleString());
    expect(within(credits).getByText('Credits available').nextSibling?.textContent).toBe('97');
    const warning = screen.getAllByRole('alert').find((a) => a.textContent?.includes('Not enough credits'))!;
    expect(warning.textContent).toContain(`leave ${(2903).toLocaleString()} rows without a lead`);
    expect(warning.textContent).toContain('outreach credits add 2902');
    expect(within(warning).getByRole('link', { name: 'Settings' }).getAttribute('href')).toMatch(/\/settings$/);
    expect(warning.textContent).toContain('import fewer rows');
    expect(screen.getAllByRole('alert').some((a) => a.textContent?.includes('stop at line 3002'))).toBe(true);
    const rejected = screen.getByRole('table', { name: 'Rows that would not be imported' });
    expect(within(rejected).getByText('networkUrl is missing.')).toBeTruthy();
    expect(within(rejected).getByText('7')).toBeTruthy();
    expect(screen.getByRole('button', { name: /Import anyway/ }).textContent).toContain((2903).toLocaleString());
    // The download is the server's CSV, under the file's own name.
    const created: Blob[] = [];
    const clicked: string[] = [];
    URL.createObjectURL = (b: Blob) => {
      created.push(b);
      return 'blob:test';
    };
    URL.revokeObjectURL = () => undefined;
    HTMLAnchorElement.prototype.click = function () {
      clicked.push(this.download);
    };
    fireEvent.click(screen.getByRole('button', { name: 'Download these rows as CSV' }));
    expect(clicked).toEqual(['big-not-imported.csv']);
    expect(await created[0]!.text()).toContain(',7,validation_error,networkUrl is missing.');
  });

  it('shows why a file cannot be imported', async () => {
    const fake = fakeCallTool({
      list_campaigns: () => ({ campaigns: [campaign()], nextCursor: null }),
      preview_import: () => ({ isError: true, error: { code: 'validation_error', message: 'No column maps to networkUrl.' } }),
    });
    renderWith(<ImportPage />, fake.callTool);
    await screen.findByRole('option', { name: 'Founders in Berlin' });
    fireEvent.change(screen.getByLabelText(/CSV file/), { target: { files: [new File(['a,b\n1,2\n'], 'x.csv')] } });
    expect((await screen.findByRole('alert')).textContent).toContain('No column maps to networkUrl.');
    expect(screen.queryByRole('button', { name: /Import/ })).toBeNull();
  });
});

describe('Inbox page', () => {
  it('shows the whole thread, replies with an idempotency key, and marks it done', async () => {
    let needsReply = true;
    const fake = fakeCallTool({
      list_conversations: () => ({
        conversations: [
          {
            leadId: 'lead_1',
            name: 'Ada Lovelace',
            companyName: 'Engines Ltd',
            campaign: { id: 'cmp_1', name: 'Founders in Berlin' },
            lastMessage: { direction: 'inbound', sender: 'lead', preview: 'Happy to talk next week', at: '2026-11-20T10:00:00.000Z' },
            lastInboundAt: '2026-11-20T10:00:00.000Z',
            messageCount: 2,
            needsReply,
            handedOff: false,
            tag: null,
            suggestion: null,
          },
        ],
        nextCursor: null,
      }),
      get_conversation: () => ({
        lead: {
          id: 'lead_1',
          name: 'Ada Lovelace',
          firstName: 'Ada',
          jobTitle: 'CTO',
          companyName: 'Engines Ltd',
          networkUrl: null,
          stage: 'replied',
          tag: null,
          needsReply,
          handedOff: false,
          excluded: false,
        },
        campaign: { id: 'cmp_1', name: 'Founders in Berlin' },
        suggestion: null,
        reply: { channel: 'linkedin', email: null },
        messages: [
          { id: 'msg_1', direction: 'outbound', sender: 'sequence', text: 'Hi Ada, thanks for connecting.', at: '2026-11-19T10:00:00.000Z' },
          {
            id: 'msg_2',
            direction: 'inbound',
            sender: 'lead',
            text: 'Happy to talk next week. Tuesday works, and the long part of this reply is never cut.',
            at: '2026-11-20T10:00:00.000Z',
          },
        ],
      }),
      reply_conversation: () => ({ ok: true, chatId: 'chat_1', messageId: 'm_9' }),
      mark_conversation_done: () => {
        needsReply = false;
        return { leadId: 'lead_1', needsReply: false };
      },
    });
    // The first reply's answer waits until the test lets it go.
    const slow = holdAnswers(fake.callTool, 'reply_conversation');
    renderWith(<InboxPage leadId="lead_1" />, slow.callTool);
    expect(fake.callsOf('list_conversations')[0]?.args).toEqual({ filter: 'needs_reply', limit: 50 });
    const thread = await screen.findByRole('list', { name: 'Messages, oldest first' });
    expect(within(thread).getAllByRole('listitem')[1]?.textContent).toContain('the long part of this reply is never cut.');
    const box = screen.getByLabelText('Your reply') as HTMLTextAreaElement;
    fireEvent.change(box, { target: { value: 'Tuesday at 10 it is.' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send reply' }));
    await waitFor(() => expect(fake.callsOf('reply_conversation')).toHaveLength(1));
    // Typed while the reply is on its way: the next reply's words, kept when the answer comes.
    fireEvent.change(box, { target: { value: 'See you then.' } });
    await act(async () => slow.release());
    expect((await screen.findByRole('status')).textContent).toBe('Reply sent.');
    expect(box.value).toBe('See you then.');
    const sent = fake.callsOf('reply_conversation')[0]?.args;
    // The reply names the channel the page showed: a LinkedIn thread answers on LinkedIn.
    expect(sent).toEqual({ leadId: 'lead_1', text: 'Tuesday at 10 it is.', channel: 'linkedin', idempotencyKey: expect.stringMatching(/^[0-9a-f]{32}$/) });
    // A reply sent with nothing typed since empties the box, and goes under a new key.
    fireEvent.click(screen.getByRole('button', { name: 'Send reply' }));
    await waitFor(() => expect(box.value).toBe(''));
    const second = fake.callsOf('reply_conversation')[1]?.args as { text: string; idempotencyKey: string };
    expect(second.text).toBe('See you then.');
    expect(second.idempotencyKey).not.toBe((sent as { idempotencyKey: string }).idempotencyKey);
    fireEvent.click(screen.getByRole('button', { name: 'Mark done' }));
    await screen.findByText('Answered');
    expect(fake.callsOf('mark_conversation_done')).toEqual([{ name: 'mark_conversation_done', args: { leadId: 'lead_1' } }]);
  });
});

describe('API keys page', () => {
  it('shows a new key once, then lists it, and revokes only after confirmation', async () => {
    const keys: ApiKey[] = [];
    const fake = fakeCallTool({
      list_api_keys: () => ({ keys: [...keys] }),
      list_campaigns: () => ({ campaigns: [campaign()], nextCursor: null }),
      create_api_key: (args) => {
        const key: ApiKey = {
          id: 'key_1',
          name: String(args.name),
          environment: 'test',
          prefix: 'sk_test_ab',
          createdAt: '2026-11-20T10:00:00.000Z',
          lastUsedAt: null,
          revokedAt: null,
          scope: null,
        };
        keys.push(key);
        return { key, secret: 'sk_test_abcdefabcdefabcdef' };
      },
      revoke_api_key: () => {
        keys[0] = { ...(keys[0] as ApiKey), revokedAt: '2026-11-20T11:00:00.000Z' };
        return { keyId: 'key_1', revoked: true };
      },
    });
    renderWith(<KeysPage />, fake.callTool);
    await screen.findByText('No keys yet.');
    fireEvent.change(screen.getByLabelText('Key name (optional)'), { target: { value: 'CRM sync' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create key' }));
    const shown = await screen.findByRole('region', { name: 'Your new API key' });
    expect(within(shown).getByText('sk_test_abcdefabcdefabcdef')).toBeTruthy();
    await screen.findByRole('cell', { name: 'CRM sync' });
    // Nothing was typed while it was created, so the form is empty for the next key.
    expect((screen.getByLabelText('Key name (optional)') as HTMLInputElement).value).toBe('');
    fireEvent.click(within(shown).getByRole('button', { name: 'I have stored it' }));
    expect(screen.queryByText('sk_test_abcdefabcdefabcdef')).toBeNull();

    fireEvent.click(screen.getByRole('button', { name: 'Revoke CRM sync' }));
    expect(fake.callsOf('revoke_api_key')).toHaveLength(0);
    fireEvent.click(screen.getByRole('button', { name: 'Revoke CRM sync now' }));
    await screen.findByText(/^Revoked/);
    expect(fake.callsOf('revoke_api_key')[0]?.args).toEqual({ keyId: 'key_1' });
  });
});

describe('API keys page: scope', () => {
  it('sends the scope ticked (read-only, one campaign) and lists it in words', async () => {
    const keys: ApiKey[] = [];
    const fake = fakeCallTool({
      list_api_keys: () => ({ keys: [...keys] }),
      list_campaigns: () => ({ campaigns: [campaign()], nextCursor: null }),
      create_api_key: (args) => {
        const key: ApiKey = {
          id: 'key_2',
          name: String(args.name),
          environment: 'test',
          prefix: 'sk_test_cd',
          createdAt: '2026-11-20T10:00:00.000Z',
          lastUsedAt: null,
          revokedAt: null,
          scope: args.scope as ApiKey['scope'],
        };
        keys.push(key);
        return { key, secret: 'sk_test_cdcdcdcdcdcdcdcd' };
      },
    });
    renderWith(<KeysPage />, fake.callTool);
    await screen.findByText('No keys yet.');
    fireEvent.change(screen.getByLabelText('Key name (optional)'), { target: { value: 'Client report' } });
    fireEvent.click(screen.getByLabelText('Read-only: every write is refused'));
    fireEvent.click(await screen.findByLabelText(campaign().name));
    fireEvent.click(screen.getByRole('button', { name: 'Create key' }));
    await screen.findByRole('region', { name: 'Your new API key' });
    expect(fake.callsOf('create_api_key')[0]?.args).toEqual({ name: 'Client report', scope: { readOnly: true, campaignIds: [campaign().id] } });
    await screen.findByRole('cell', { name: `Read-only · Campaigns: ${campaign().name}` });
  });
});

describe('Webhooks page', () => {
  it('rotates the secret after a confirmation and redelivers a delivery', async () => {
    const fake = fakeCallTool({
      list_webhook_endpoints: () => ({
        endpoints: [
          {
            id: 'whe_1',
            url: 'https://hooks.example.com/in',
            events: ['lead.tagged'],
            status: 'active',
            disabledReason: null,
            createdAt: '2026-11-20T10:00:00.000Z',
            pendingDeliveries: 0,
          },
        ],
        secretSet: true,
      }),
      rotate_webhook_secret: () => ({ secret: 'whsec_new_secret_value' }),
      list_webhook_deliveries: () => ({
        deliveries: [
          {
            id: 'whd_1',
            eventId: 'evt_1',
            eventType: 'lead.tagged',
            endpointId: 'whe_1',
            url: 'https://hooks.example.com/in',
            state: 'failed',
            attempts: 2,
            nextAttemptAt: null,
            lastStatus: 500,
            lastError: 'HTTP 500',
            createdAt: '2026-11-20T10:00:00.000Z',
            updatedAt: '2026-11-20T10:05:00.000Z',
            log: [
              { attempt: 1, at: '2026-11-20T10:00:00.000Z', status: 500, durationMs: 12, error: 'HTTP 500', response: null, finished: true },
              { attempt: 2, at: '2026-11-20T10:05:00.000Z', status: 500, durationMs: 9, error: 'HTTP 500', response: null, finished: true },
            ],
          },
        ],
        nextCursor: null,
      }),
      redeliver_webhook_delivery: () => ({ deliveryId: 'whd_2' }),
    });
    renderWith(<WebhooksPage />, fake.callTool);
    await screen.findByText('https://hooks.example.com/in', { selector: 'span' });
    expect(screen.getByText('A signing secret is set.')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Rotate the signing secret' }));
    expect(fake.callsOf('rotate_webhook_secret')).toHaveLength(0);
    fireEvent.click(screen.getByRole('button', { name: 'Rotate now' }));
    expect(within(await screen.findByRole('region', { name: 'The new signing secret' })).getByText('whsec_new_secret_value')).toBeTruthy();

    expect(screen.getByText('2 attempts')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: /^Redeliver lead\.tagged/ }));
    await screen.findByText('Queued.');
    expect(fake.callsOf('redeliver_webhook_delivery')[0]?.args).toEqual({ deliveryId: 'whd_1' });
  });
});

describe('Accounts page', () => {
  it("shows today's counters against the limits and saves new limits", async () => {
    const fake = fakeCallTool({
      list_accounts: () => ({
        accounts: [
          {
            id: 'acc_1',
            name: 'Ada (sales)',
            status: 'connected',
            active: true,
            hasSalesNavigator: false,
            today: { connectionRequestsSent: 7, connectionRequestsAccepted: 2, connectionRequestLimit: 25, messagesSent: 11, messageLimit: 50 },
            limits: { connectionRequestLimit: 25, messageLimit: 50 },
            week: { connectionRequestsSent: 40, connectionRequestLimit: 100, fullUntil: null },
            warmUp: null,
          },
        ],
        nextCursor: null,
      }),
      update_account: (args) => ({ ...args }),
    });
    renderWith(<AccountsPage />, fake.callTool);
    const meter = (await screen.findByRole('meter', { name: 'Connection requests: 7 of 25' })) as HTMLMeterElement;
    expect(meter.value).toBe(7);
    expect(meter.max).toBe(25);
    expect(screen.getByRole('meter', { name: 'Messages: 11 of 50' })).toBeTruthy();
    expect(screen.queryByText(/Warm-up/)).toBeNull();
    expect(screen.queryByRole('button', { name: 'End warm-up' })).toBeNull();
    fireEvent.change(screen.getByLabelText('Requests per day'), { target: { value: '40' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save limits' }));
    await screen.findByText('Saved.');
    expect(fake.callsOf('update_account')[0]?.args).toEqual({ accountId: 'acc_1', connectionRequestLimit: 40, messageLimit: 50 });
  });

  it("shows a warm-up with its day, today's lower limits beside the configured ones, and ends it on request", async () => {
    const warming = {
      id: 'acc_new',
      name: 'New seat',
      status: 'connected',
      active: true,
      hasSalesNavigator: false,
      today: { connectionRequestsSent: 2, connectionRequestsAccepted: 0, connectionRequestLimit: 8, messagesSent: 0, messageLimit: 16 },
      limits: { connectionRequestLimit: 25, messageLimit: 50 },
      week: { connectionRequestsSent: 13, connectionRequestLimit: 100, fullUntil: null },
      warmUp: { day: 3, days: 14 } as { day: number; days: number } | null,
    };
    const fake = fakeCallTool({
      list_accounts: () => ({ accounts: [warming], nextCursor: null }),
      update_account: (args) => {
        warming.warmUp = null;
        return { ...warming, ...args };
      },
    });
    renderWith(<AccountsPage />, fake.callTool);
    expect(await screen.findByRole('meter', { name: 'Connection requests: 2 of 8' })).toBeTruthy();
    expect(screen.getByRole('meter', { name: 'Messages: 0 of 16' })).toBeTruthy();
    expect(screen.getByText('Configured: 25 requests and 50 messages a day.')).toBeTruthy();
    expect(screen.getByText('Warm-up: day 3 of 14.')).toBeTruthy();
    // The form holds the configured limits: saving it unchanged must not lower them to today's.
    expect((screen.getByLabelText('Requests per day') as HTMLInputElement).value).toBe('25');
    expect((screen.getByLabelText('Messages per day') as HTMLInputElement).value).toBe('50');
    fireEvent.click(screen.getByRole('button', { name: 'End warm-up' }));
    await waitFor(() => expect(screen.queryByText('Warm-up: day 3 of 14.')).toBeNull());
    expect(fake.callsOf('update_account').map((c) => c.args)).toEqual([{ accountId: 'acc_new', warmUp: false }]);
  });

  it('says when the week is full, and connects an account without a warm-up only when asked', async () => {
    const full = {
      id: 'acc_1',
      name: 'Busy',
      status: 'connected',
      active: true,
      hasSalesNavigator: false,
      today: { connectionRequestsSent: 0, connectionRequestsAccepted: 0, connectionRequestLimit: 0, messagesSent: 0, messageLimit: 50 },
      limits: { connectionRequestLimit: 25, messageLimit: 50 },
      week: { connectionRequestsSent: 100, connectionRequestLimit: 100, fullUntil: '2026-11-30T00:00:00.000Z' },
      warmUp: null,
    };
    const fake = fakeCallTool({
      list_accounts: () => ({ accounts: [full], nextCursor: null }),
      connect_account: (args) => ({ account: { ...full, id: 'acc_2', name: args.name }, connectUrl: null }),
    });
    renderWith(<AccountsPage />, fake.callTool);
    expect(await screen.findByText(/100 of 100 requests in the last 7 days; new requests wait until/)).toBeTruthy();
    const skip = screen.getByRole('checkbox', { name: 'Skip the warm-up' }) as HTMLInputElement;
    expect(skip.checked).toBe(false);
    fireEvent.change(screen.getByLabelText('Account name'), { target: { value: 'Fresh' } });
    fireEvent.click(screen.getByRole('button', { name: 'Connect' }));
    await screen.findByText('Fresh is connected.');
    fireEvent.click(skip);
    fireEvent.change(screen.getByLabelText('Account name'), { target: { value: 'Veteran' } });
    fireEvent.click(screen.getByRole('button', { name: 'Connect' }));
    await screen.findByText('Veteran is connected.');
    const sent = fake.callsOf('connect_account').map(({ args }) => ({ name: args.name, warmUp: args.warmUp }));
    expect(sent).toEqual([
      { name: 'Fresh', warmUp: undefined },
      { name: 'Veteran', warmUp: false },
    ]);
    expect(skip.checked).toBe(false);
  });
});

describe('Settings page', () => {
  it('shows the plan and balances, and grants credits to the balance chosen with an idempotency key', async () => {
    let credits = { credits: 0, topUpCredits: 0, lookalikeCredits: 5, lookalikeTopUpCredits: 0, planId: 'growth' };
    const fake = fakeCallTool({
      get_credits: () => credits,
      grant_credits: (args) => {
        credits = { ...credits, lookalikeTopUpCredits: credits.lookalikeTopUpCredits + Number(args.amount) };
        return { granted: Number(args.amount), balance: 'lookalikeTopUpCredits', credits };
      },
    });
    const realFetch = globalThis.fetch;
    onTestFinished(() => {
      globalThis.fetch = realFetch;
    });
    globalThis.fetch = (async () =>
      new Response(JSON.stringify({ workspace: { name: 'Acme', plan: 'paid', env: 'development' }, tools: [] }), {
        headers: { 'content-type': 'application/json' },
      })) as typeof fetch;
    renderWith(<SettingsPage />, fake.callTool);
    const plan = await screen.findByLabelText('Plan');
    expect(plan.textContent).toContain('growth (paid)');
    expect(within(screen.getByLabelText('Credit balances')).getByText('Lookalike credits').nextSibling?.textContent).toBe('5');
    expect(screen.getByText(/No credits left/)).toBeTruthy();

    fireEvent.change(screen.getByLabelText('Credits to add'), { target: { value: '0' } });
    fireEvent.click(screen.getByRole('button', { name: 'Grant credits' }));
    expect((await screen.findByRole('alert')).textContent).toContain('from 1 to 10,000,000');
    expect(fake.callsOf('grant_credits')).toHaveLength(0);

    fireEvent.change(screen.getByLabelText('Credits to add'), { target: { value: '250' } });
    fireEvent.click(screen.getByLabelText('Lookalike top-up credits'));
    expect(screen.getByText(/outreach credits add 250 --lookalike --top-up/)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Grant credits' }));
    expect((await screen.findByRole('status')).textContent).toContain('Granted 250 lookalike top-up credits');
    expect(fake.callsOf('grant_credits')[0]?.args).toEqual({
      amount: 250,
      lookalike: true,
      topUp: true,
      idempotencyKey: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    await waitFor(() => expect(within(screen.getByLabelText('Credit balances')).getByText('Lookalike top-up credits').nextSibling?.textContent).toBe('250'));
  });
});

describe('Exclusions page', () => {
  it('adds typed URLs, imports a file, lists them newest first and removes one', async () => {
    let list: { networkUrl: string; createdAt: string }[] = [];
    const at = '2026-11-20T10:00:00.000Z';
    const add = (urls: string[]) => {
      const added = urls.filter((u) => !list.some((e) => e.networkUrl === u));
      list = [...added.map((networkUrl) => ({ networkUrl, createdAt: at })), ...list];
      return { added, alreadyExcluded: urls.filter((u) => !added.includes(u)), leadsExcluded: 1 };
    };
    const fake = fakeCallTool({
      list_exclusions: () => ({ exclusions: list, nextCursor: null }),
      add_exclusions: (args) => add(args.urls as string[]),
      import_exclusions: (args) => add((args.file as string).split('\n').filter((l) => l.startsWith('https://'))),
      remove_exclusions: (args) => {
        list = list.filter((e) => !(args.urls as string[]).includes(e.networkUrl));
        return { removed: args.urls, notExcluded: [] };
      },
    });
    const slow = holdAnswers(fake.callTool, 'add_exclusions');
    renderWith(<ExclusionsPage />, slow.callTool);
    await screen.findByText('No profile is excluded yet.');

    const urls = screen.getByLabelText('Profile URLs, one a line') as HTMLTextAreaElement;
    fireEvent.change(urls, { target: { value: 'https://www.linkedin.com/in/one\n\n https://www.linkedin.com/in/two \n' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add to the list' }));
    await waitFor(() => expect(fake.callsOf('add_exclusions')).toHaveLength(1));
    // A URL typed while the call is on its way was not sent, and stays in the box.
    fireEvent.change(urls, { target: { value: 'https://www.linkedin.com/in/four' } });
    await act(async () => slow.release());
    expect((await screen.findByRole('status')).textContent).toBe('Added 2 profiles to the list; 1 lead newly excluded.');
    expect(urls.value).toBe('https://www.linkedin.com/in/four');
    fireEvent.change(urls, { target: { value: '' } });
    expect(fake.callsOf('add_exclusions')[0]?.args).toEqual({ urls: ['https://www.linkedin.com/in/one', 'https://www.linkedin.com/in/two'] });
    const table = await screen.findByRole('table', { name: 'Excluded profiles, newest first' });
    await within(table).findByText('https://www.linkedin.com/in/two', { selector: 'bdi' });

    const file = new File(['LinkedIn URL\nhttps://www.linkedin.com/in/three\nhttps://www.linkedin.com/in/one\n'], 'no-contact.csv', { type: 'text/csv' });
    fireEvent.change(screen.getByLabelText('Exclusion file (.csv or .txt)'), { target: { files: [file] } });
    fireEvent.click(screen.getByRole('button', { name: 'Import no-contact.csv' }));
    await waitFor(() =>
      expect(screen.getByRole('status').textContent).toBe('no-contact.csv: Added 1 profile to the list (1 already on the list); 1 lead newly excluded.'),
    );
    expect(fake.callsOf('import_exclusions')[0]?.args.file).toContain('https://www.linkedin.com/in/three');
    await within(table).findByText('https://www.linkedin.com/in/three', { selector: 'bdi' });

    fireEvent.click(within(table).getByRole('button', { name: 'Remove https://www.linkedin.com/in/one' }));
    await waitFor(() => expect(within(table).queryByText('https://www.linkedin.com/in/one', { selector: 'bdi' })).toBeNull());
    expect(fake.callsOf('remove_exclusions')[0]?.args).toEqual({ urls: ['https://www.linkedin.com/in/one'] });
  });

  it('adds nothing and says why when the server refuses a URL', async () => {
    const fake = fakeCallTool({
      list_exclusions: () => ({ exclusions: [], nextCursor: null }),
      add_exclusions: () => ({
        isError: true,
        error: { code: 'validation_error', message: 'urls[0]: "nope" is not a LinkedIn profile URL.', details: { fields: ['urls[0]'] } },
      }),
    });
    renderWith(<ExclusionsPage />, fake.callTool);
    fireEvent.change(await screen.findByLabelText('Profile URLs, one a line'), { target: { value: 'nope' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add to the list' }));
    expect((await screen.findByRole('alert')).textContent).toContain('is not a LinkedIn profile URL');
    expect((screen.getByLabelText('Profile URLs, one a line') as HTMLTextAreaElement).value).toBe('nope');
  });
});
