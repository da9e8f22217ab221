// @vitest-environment jsdom
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { DraftQueue } from '../shared/components/DraftQueue.js';
import { clip, countSends, kindsInWords, reconcile, seenOf } from '../shared/drafts.js';
import type { Draft } from '../shared/types.js';
import type { CallTool } from '../shared/seam.js';
import { fakeCallTool, holdAnswers, renderWith } from './render.js';

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
    createdAt: `2026-11-21T12:00:0${n}.000Z`,
    updatedAt: '2026-11-21T12:00:00.000Z',
    lead: { fullName: `Lead ${n}`, jobTitle: 'CTO', companyName: `Co ${n}`, headline: null, location: 'Berlin', personalization: null, networkUrl: null },
    revision: 1,
    skipReason: null,
    ...over,
  } as Draft;
}

const updated = (args: Record<string, unknown>) => {
  const items = args.drafts as { id: string }[];
  return {
    results: items.map((d, index) => ({ index, draftId: d.id, status: 'updated' })),
    summary: { total: items.length, updated: items.length, not_found: 0, validation_error: 0, conflict: 0 },
  };
};

/** A server holding one draft, which a save updates, moving its revision as the real one does. */
function oneDraftServer() {
  let stored = 'Hi 1';
  let revision = 1;
  const fake = fakeCallTool({
    list_drafts: () => ({ drafts: [draft(1, { text: stored, revision })], nextCursor: null }),
    update_drafts: (args) => {
      const item = (args.drafts as { text?: string }[])[0];
      if (item?.text !== undefined) stored = item.text;
      revision += 1;
      return updated(args);
    },
  });
  /** Another writer changes the words. */
  const writeElsewhere = (text: string) => {
    stored = text;
    revision += 1;
  };
  return { ...fake, writeElsewhere };
}

const accounts = () => ({
  accounts: [
    { id: 'acc_1', name: 'Ada Lovelace' },
    { id: 'acc_2', name: 'Bob Babbage' },
  ],
  nextCursor: null,
});

describe('DraftQueue', () => {
  it('approves a selection after a confirmation naming the counts per sender and kind, each with the revision shown', async () => {
    const fake = fakeCallTool({
      list_drafts: () => ({
        drafts: [draft(1), draft(2, { accountId: 'acc_2', kind: 'message', revision: 4 }), draft(3, { drafterError: 'The model answered HTTP 500.' })],
        nextCursor: null,
      }),
      list_accounts: accounts,
      update_drafts: updated,
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
    // Nothing is sent before the reviewer confirms what will go out, and from whom.
    const dialog = await screen.findByRole('alertdialog', { name: 'Approve 2 drafts?' });
    await within(dialog).findByText('1 from Ada Lovelace');
    expect(within(dialog).getByText('1 from Bob Babbage')).toBeTruthy();
    expect(fake.callsOf('update_drafts')).toHaveLength(0);
    const go = within(dialog).getByRole('button', { name: 'Approve and send 1 invitation and 1 message' });
    expect(document.activeElement).toBe(go);
    fireEvent.click(go);
    await waitFor(() => expect(fake.callsOf('update_drafts')).toHaveLength(1));
    expect(fake.callsOf('update_drafts')[0]?.args).toEqual({
      drafts: [
        { id: 'drf_1', text: 'Hello Lead 1, glad to meet a CTO.', revision: 1, status: 'approved' },
        { id: 'drf_2', revision: 4, status: 'approved' },
      ],
    });
    await screen.findByText('Approved: 2 of 2.');
  });

  it('sends the revision shown with an unedited Approve, and moves the focus to the next draft', async () => {
    let approved = false;
    const fake = fakeCallTool({
      list_drafts: () => ({ drafts: approved ? [draft(2)] : [draft(1, { revision: 3 }), draft(2)], nextCursor: null }),
      update_drafts: (args) => {
        approved = true;
        return updated(args);
      },
    });
    renderWith(<DraftQueue args={{ campaignId: 'cmp_1' }} shortcuts />, fake.callTool);
    const first = await screen.findByRole('article', { name: 'Draft for Lead 1' });
    first.focus();
    fireEvent.keyDown(first, { key: 'a' });
    await waitFor(() => expect(fake.callsOf('update_drafts')).toHaveLength(1));
    expect(fake.callsOf('update_drafts')[0]?.args).toEqual({ drafts: [{ id: 'drf_1', revision: 3, status: 'approved' }] });
    const second = screen.getByRole('article', { name: 'Draft for Lead 2' });
    await waitFor(() => expect(document.activeElement).toBe(second));
  });

  it('keeps a conflicted draft on screen with the server’s reason, the current text and the reviewer’s own words', async () => {
    let conflicted = false;
    const current = { revision: 2, status: 'pending' as const, text: 'Hi 1, rewritten by the assistant.', subject: null };
    const fake = fakeCallTool({
      // After the conflict the draft reads as the other writer left it.
      list_drafts: () => ({ drafts: [conflicted ? draft(1, current) : draft(1)], nextCursor: null }),
      update_drafts: (args) => {
        const [item] = args.drafts as { id: string; revision?: number }[];
        if (item?.revision === 1) {
          conflicted = true;
          return {
            results: [
              {
                index: 0,
                draftId: 'drf_1',
                status: 'conflict',
                error: { code: 'conflict', message: 'Draft drf_1 changed since revision 1: it is at revision 2 now.', current },
              },
            ],
            summary: { total: 1, updated: 0, not_found: 0, validation_error: 0, conflict: 1 },
          };
        }
        return updated(args);
      },
    });
    renderWith(<DraftQueue args={{ campaignId: 'cmp_1' }} />, fake.callTool);
    const item = await screen.findByRole('article', { name: 'Draft for Lead 1' });
    const text = within(item).getByLabelText('Invitation note for Lead 1') as HTMLTextAreaElement;
    fireEvent.change(text, { target: { value: 'My own careful words.' } });
    fireEvent.click(within(item).getByRole('button', { name: /^Approve/ }));
    expect((await within(item).findByRole('alert')).textContent).toContain('changed since revision 1');
    // The reviewer's words stay in the box; the draft's current words show beside them.
    await within(item).findByText('Changed since you opened it');
    expect(within(item).getByText('Hi 1, rewritten by the assistant.')).toBeTruthy();
    expect(text.value).toBe('My own careful words.');
    expect(screen.getByRole('status').textContent).toContain('Approved: 0 of 1');
    // Approving waits for a fresh look; keeping one's own words then sends the new revision.
    expect((within(item).getByRole('button', { name: /^Approve/ }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(within(item).getByRole('button', { name: /^Keep my text/ }));
    fireEvent.click(within(item).getByRole('button', { name: /^Approve/ }));
    await waitFor(() => expect(fake.callsOf('update_drafts')).toHaveLength(2));
    expect(fake.callsOf('update_drafts')[1]?.args).toEqual({ drafts: [{ id: 'drf_1', text: 'My own careful words.', revision: 2, status: 'approved' }] });
  });

  it('keeps a draft another tab already approved on screen, closed, with the reason', async () => {
    let gone = false;
    const fake = fakeCallTool({
      list_drafts: () => ({ drafts: gone ? [] : [draft(1)], nextCursor: null }),
      update_drafts: () => {
        gone = true;
        return {
          results: [
            {
              index: 0,
              draftId: 'drf_1',
              status: 'conflict',
              error: {
                code: 'conflict',
                message: 'Draft drf_1 was already sent; it cannot change.',
                current: { revision: 1, status: 'sent', text: 'Hi 1', subject: null },
              },
            },
          ],
          summary: { total: 1, updated: 0, not_found: 0, validation_error: 0, conflict: 1 },
        };
      },
    });
    renderWith(<DraftQueue args={{ campaignId: 'cmp_1' }} />, fake.callTool);
    const item = await screen.findByRole('article', { name: 'Draft for Lead 1' });
    fireEvent.click(within(item).getByRole('button', { name: /^Approve/ }));
    expect((await within(item).findByRole('alert')).textContent).toContain('already sent');
    expect(within(item).getByText('Sent')).toBeTruthy();
    fireEvent.click(within(item).getByRole('button', { name: /^Dismiss/ }));
    await waitFor(() => expect(screen.queryByRole('article', { name: 'Draft for Lead 1' })).toBeNull());
  });

  it('learns of a change while open, marks the draft and asks for a fresh look before approving', async () => {
    let revision = 1;
    const fake = fakeCallTool({
      list_drafts: () => ({ drafts: [draft(1, revision === 1 ? {} : { revision, text: 'Hi 1, now with a link.' })], nextCursor: null }),
      update_drafts: updated,
    });
    renderWith(<DraftQueue args={{ campaignId: 'cmp_1' }} pollMs={30} />, fake.callTool);
    const item = await screen.findByRole('article', { name: 'Draft for Lead 1' });
    expect(within(item).queryByText('Changed since you opened it')).toBeNull();
    revision = 2;
    await within(item).findByText('Changed since you opened it', {}, { timeout: 3_000 });
    // The box shows the new words; the old ones are quoted for comparison.
    expect((within(item).getByLabelText('Invitation note for Lead 1') as HTMLTextAreaElement).value).toBe('Hi 1, now with a link.');
    expect(item.querySelector('.o-draft-quote')?.textContent).toBe('Hi 1');
    expect((within(item).getByRole('button', { name: /^Approve/ }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(within(item).getByRole('button', { name: /^I have read the new text/ }));
    fireEvent.click(within(item).getByRole('button', { name: /^Approve/ }));
    await waitFor(() => expect(fake.callsOf('update_drafts')).toHaveLength(1));
    expect(fake.callsOf('update_drafts')[0]?.args).toEqual({ drafts: [{ id: 'drf_1', revision: 2, status: 'approved' }] });
  });

  it('gives a rejection an Undo window: undone, nothing is sent; let run, it is sent', async () => {
    const fake = fakeCallTool({ list_drafts: () => ({ drafts: [draft(1), draft(2)], nextCursor: null }), update_drafts: updated });
    renderWith(<DraftQueue args={{ campaignId: 'cmp_1' }} rejectUndoMs={60_000} shortcuts />, fake.callTool);
    const first = await screen.findByRole('article', { name: 'Draft for Lead 1' });
    first.focus();
    fireEvent.keyDown(first, { key: 'r' });
    await screen.findByText('Rejected the draft for Lead 1.');
    expect(screen.queryByRole('article', { name: 'Draft for Lead 1' })).toBeNull();
    // The focus is on the next draft, not lost.
    expect(document.activeElement).toBe(screen.getByRole('article', { name: 'Draft for Lead 2' }));
    fireEvent.click(screen.getByRole('button', { name: 'Undo' }));
    await screen.findByRole('article', { name: 'Draft for Lead 1' });
    expect(fake.callsOf('update_drafts')).toHaveLength(0);
    cleanup();

    const fast = fakeCallTool({ list_drafts: () => ({ drafts: [draft(1)], nextCursor: null }), update_drafts: updated });
    renderWith(<DraftQueue args={{ campaignId: 'cmp_1' }} rejectUndoMs={20} />, fast.callTool);
    const item = await screen.findByRole('article', { name: 'Draft for Lead 1' });
    await act(async () => fireEvent.click(within(item).getByRole('button', { name: /^Reject/ })));
    await waitFor(() => expect(fast.callsOf('update_drafts')).toHaveLength(1));
    expect(fast.callsOf('update_drafts')[0]?.args).toEqual({ drafts: [{ id: 'drf_1', revision: 1, status: 'rejected' }] });
  });

  it('blocks an over-long note, and cuts a long headline with the rest a click away', async () => {
    const headline = `${'Builder of things '.repeat(30)}END`;
    const fake = fakeCallTool({ list_drafts: () => ({ drafts: [draft(1, { lead: { ...draft(1).lead, headline } })], nextCursor: null }) });
    renderWith(<DraftQueue args={{ campaignId: 'cmp_1' }} />, fake.callTool);
    const item = await screen.findByRole('article', { name: 'Draft for Lead 1' });
    const text = within(item).getByLabelText('Invitation note for Lead 1');
    fireEvent.change(text, { target: { value: 'x'.repeat(301) } });
    expect(within(item).getByText('301 of 300 characters')).toBeTruthy();
    expect((within(item).getByRole('button', { name: /^Approve/ }) as HTMLButtonElement).disabled).toBe(true);
    expect(within(item).queryByText(/END/)).toBeNull();
    const more = within(item).getByRole('button', { name: 'Show all' });
    expect(more.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(more);
    expect(within(item).getByText(/END$/)).toBeTruthy();
  });

  it('keeps the words typed while a save is on its way, and later saves those', async () => {
    const fake = oneDraftServer();
    // The save's answer waits until the test lets it go.
    const { callTool, release: answer } = holdAnswers(fake.callTool, 'update_drafts');
    renderWith(<DraftQueue args={{ campaignId: 'cmp_1' }} />, callTool);
    const item = await screen.findByRole('article', { name: 'Draft for Lead 1' });
    const text = within(item).getByLabelText('Invitation note for Lead 1') as HTMLTextAreaElement;
    fireEvent.change(text, { target: { value: 'First words' } });
    fireEvent.click(within(item).getByRole('button', { name: 'Save the draft for Lead 1' }));
    await waitFor(() => expect(fake.callsOf('update_drafts')).toHaveLength(1));
    // The reviewer goes on typing before the save's answer arrives.
    fireEvent.change(text, { target: { value: 'First words, and then some more' } });
    await act(async () => answer());
    await screen.findByText('Saved: 1 of 1.');
    await waitFor(() => expect(fake.callsOf('list_drafts').length).toBeGreaterThan(1));
    // The answer and the queue's reread leave the newer words alone, still to be saved.
    expect(text.value).toBe('First words, and then some more');
    expect(within(item).getByText('31 of 300 characters')).toBeTruthy();
    expect(within(item).queryByText('Changed since you opened it')).toBeNull();
    fireEvent.click(within(item).getByRole('button', { name: 'Save the draft for Lead 1' }));
    await waitFor(() => expect(fake.callsOf('update_drafts')).toHaveLength(2));
    expect(fake.callsOf('update_drafts')[1]?.args).toEqual({ drafts: [{ id: 'drf_1', text: 'First words, and then some more', revision: 2 }] });
  });

  it('shows the saved words from the save’s answer to the queue’s reread, and then forgets them as an edit', async () => {
    const fake = oneDraftServer();
    // From the save on, the queue's rereads answer only when the test lets them.
    let reads: Promise<void> | null = null;
    let letReadsGo: () => void = () => undefined;
    const callTool: CallTool = async (name, args) => {
      const result = fake.callTool(name, args);
      if (name === 'list_drafts' && reads) await reads;
      return result;
    };
    renderWith(<DraftQueue args={{ campaignId: 'cmp_1' }} pollMs={30} />, callTool);
    const item = await screen.findByRole('article', { name: 'Draft for Lead 1' });
    const text = within(item).getByLabelText('Invitation note for Lead 1') as HTMLTextAreaElement;
    fireEvent.change(text, { target: { value: 'Saved words' } });
    reads = new Promise((resolve) => {
      letReadsGo = resolve;
    });
    fireEvent.click(within(item).getByRole('button', { name: 'Save the draft for Lead 1' }));
    await screen.findByText('Saved: 1 of 1.');
    // The answer is in, the list still holds the old words: the box keeps the saved ones, so
    // nothing typed into it now lands after a stale text.
    expect(text.value).toBe('Saved words');
    expect(within(item).getByText('11 of 300 characters')).toBeTruthy();
    // Nothing can be sent again before the reread: it would carry the revision the save replaced.
    expect((within(item).getByRole('button', { name: 'Save the draft for Lead 1' }) as HTMLButtonElement).disabled).toBe(true);
    expect((within(item).getByRole('button', { name: 'Approve the draft for Lead 1' }) as HTMLButtonElement).disabled).toBe(true);
    await act(async () => letReadsGo());
    await waitFor(() => expect((within(item).getByRole('button', { name: 'Save the draft for Lead 1' }) as HTMLButtonElement).disabled).toBe(true));
    expect(text.value).toBe('Saved words');
    // Once the list shows them, they are no longer the reviewer's edit: another writer's change
    // then reads as the new text, not as "your text stays below".
    fake.writeElsewhere('Changed elsewhere');
    await within(item).findByText('Changed since you opened it', {}, { timeout: 3_000 });
    expect(within(item).getByText(/The new text is below/)).toBeTruthy();
    expect(text.value).toBe('Changed elsewhere');
  });

  it('works against a server without revisions: sends none, and still marks changed words', async () => {
    let text = 'Hi 1';
    const bare = (over: Partial<Draft> = {}) => {
      const { revision: _r, skipReason: _s, ...rest } = draft(1, over);
      return rest as Draft;
    };
    const fake = fakeCallTool({ list_drafts: () => ({ drafts: [bare({ text })], nextCursor: null }), update_drafts: updated });
    renderWith(<DraftQueue args={{ campaignId: 'cmp_1' }} pollMs={30} />, fake.callTool);
    const item = await screen.findByRole('article', { name: 'Draft for Lead 1' });
    text = 'Hi 1, changed elsewhere';
    await within(item).findByText('Changed since you opened it', {}, { timeout: 3_000 });
    fireEvent.click(within(item).getByRole('button', { name: /^I have read the new text/ }));
    fireEvent.click(within(item).getByRole('button', { name: /^Approve/ }));
    await waitFor(() => expect(fake.callsOf('update_drafts')).toHaveLength(1));
    expect(fake.callsOf('update_drafts')[0]?.args).toEqual({ drafts: [{ id: 'drf_1', status: 'approved' }] });
  });
});

describe('draft words', () => {
  it('counts what an approval sends, singular and plural', () => {
    expect(kindsInWords({ invite: 1 })).toBe('1 invitation');
    expect(kindsInWords({ invite: 2, message: 1, inmail: 3 })).toBe('2 invitations, 1 message and 3 InMails');
    expect(countSends([draft(1), draft(2, { accountId: 'acc_2', kind: 'inmail' }), draft(3)])).toEqual({
      count: 3,
      kinds: { invite: 2, message: 0, inmail: 1 },
      accounts: [
        { accountId: 'acc_1', count: 2 },
        { accountId: 'acc_2', count: 1 },
      ],
    });
  });

  it('clips by code points, and reconciles the reviewer’s own save as seen', () => {
    expect(clip('ab😀cd', 3)).toEqual({ shown: 'ab😀…', clipped: true });
    expect(clip('short', 10)).toEqual({ shown: 'short', clipped: false });
    const seen = { drf_1: seenOf(draft(1)) };
    const mine = reconcile(seen, { drf_1: { text: 'Mine', subject: null } }, [draft(1, { text: 'Mine', revision: 2 })]);
    expect(mine.seen.drf_1?.revision).toBe(2);
    expect(mine.expected).toEqual({});
    const theirs = reconcile(seen, {}, [draft(1, { text: 'Theirs', revision: 2 })]);
    expect(theirs.seen).toBe(seen);
  });
});
