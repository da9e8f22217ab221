// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { LeadsTable } from '../shared/components/LeadsTable.js';
import { CallToolProvider, type CallTool, type ToolResult } from '../shared/seam.js';
import { lead } from './fixtures.js';

afterEach(cleanup);

const result = (value: unknown): ToolResult => ({ isError: false, structuredContent: value, content: [{ type: 'text', text: JSON.stringify(value) }] });

/** Lets every promise settled so far run on, and the query cache's notifications (one task later) reach React. */
const settle = () => act(() => new Promise<void>((resolve) => setTimeout(resolve, 0)));

/**
 * A change makes the table's read stale while it is open (a view following the server's
 * changes, or the dashboard's change events): the page shown is read again. The user may move
 * on before that read answers; its answer belongs to the page it was asked for and never
 * replaces the page the user went to.
 */
describe('LeadsTable re-read while the user pages', () => {
  it('keeps the next page shown when the re-read of the page left answers after it, and shows that answer back on that page', async () => {
    const page1 = { leads: [lead(1), lead(2)], nextCursor: 'c2' };
    const page2 = { leads: [lead(3)], nextCursor: null };
    const fresh1 = { leads: [lead(9), lead(1)], nextCursor: 'c2' };
    /** The first-page reads, each answered only when the test says. */
    const held: { args: Record<string, unknown>; answer: (value: unknown) => void }[] = [];
    const callTool: CallTool = (name, args) => {
      if (name !== 'list_leads') throw new Error(`unexpected tool call ${name}`);
      if (args.cursor === 'c2') return Promise.resolve(result(page2));
      return new Promise((resolve) => held.push({ args, answer: (value) => resolve(result(value)) }));
    };
    const client = new QueryClient({ defaultOptions: { queries: { retry: false, gcTime: Infinity } } });
    render(
      <QueryClientProvider client={client}>
        <CallToolProvider callTool={callTool}>
          <LeadsTable campaignId="cmp_1" initial={page1} pageSize={2} />
        </CallToolProvider>
      </QueryClientProvider>,
    );
    expect(screen.getByRole('checkbox', { name: 'Select Lead Number1' })).toBeTruthy();

    // A change: the page shown is read again, and that read has not answered yet.
    await act(async () => {
      void client.invalidateQueries({ queryKey: ['list_leads'] });
    });
    expect(held).toHaveLength(1);
    expect(held[0]?.args.cursor).toBeUndefined();
    await waitFor(() => expect(screen.getByRole('table').getAttribute('aria-busy')).toBe('true'));

    // The user goes on meanwhile: the re-read does not hold the button.
    const next = screen.getByRole('button', { name: 'Next page' }) as HTMLButtonElement;
    expect(next.disabled).toBe(false);
    fireEvent.click(next);
    await screen.findByRole('checkbox', { name: 'Select Lead Number3' });
    expect(screen.getByText('Page 2')).toBeTruthy();

    // The first page's re-read answers now: the second page stays.
    held[0]?.answer(fresh1);
    await settle();
    expect(screen.getByText('Page 2')).toBeTruthy();
    expect(screen.getByRole('checkbox', { name: 'Select Lead Number3' })).toBeTruthy();
    expect(screen.queryByRole('checkbox', { name: 'Select Lead Number9' })).toBeNull();

    // Back on the first page, it is read again (its read was left, so it is still stale) and shows the new lead.
    fireEvent.click(screen.getByRole('button', { name: 'Previous page' }));
    await act(async () => {
      for (const h of held.slice(1)) h.answer(fresh1);
    });
    await screen.findByRole('checkbox', { name: 'Select Lead Number9' });
    expect(screen.getByText('Page 1')).toBeTruthy();
  });

  it('keeps a filter chosen while a re-read of the unfiltered page is on its way', async () => {
    const all = { leads: [lead(1), lead(2)], nextCursor: null };
    const replied = { leads: [lead(2, { replied: true })], nextCursor: null };
    const held: ((value: unknown) => void)[] = [];
    const callTool: CallTool = (_name, args) => {
      if (args.replied === true) return Promise.resolve(result(replied));
      return new Promise((resolve) => held.push((value) => resolve(result(value))));
    };
    const client = new QueryClient({ defaultOptions: { queries: { retry: false, gcTime: Infinity } } });
    render(
      <QueryClientProvider client={client}>
        <CallToolProvider callTool={callTool}>
          <LeadsTable campaignId="cmp_1" initial={all} />
        </CallToolProvider>
      </QueryClientProvider>,
    );
    await act(async () => {
      void client.invalidateQueries({ queryKey: ['list_leads'] });
    });
    expect(held).toHaveLength(1);
    await waitFor(() => expect(screen.getByRole('table').getAttribute('aria-busy')).toBe('true'));
    fireEvent.change(screen.getByLabelText('Show'), { target: { value: 'replied:true' } });
    await waitFor(() => expect(screen.queryByRole('checkbox', { name: 'Select Lead Number1' })).toBeNull());
    held[0]?.({ leads: [lead(7), lead(1), lead(2)], nextCursor: null });
    await settle();
    expect((screen.getByLabelText('Show') as HTMLSelectElement).value).toBe('replied:true');
    expect(screen.getByRole('checkbox', { name: 'Select Lead Number2' })).toBeTruthy();
    expect(screen.queryByRole('checkbox', { name: 'Select Lead Number7' })).toBeNull();
    expect(screen.queryByRole('checkbox', { name: 'Select Lead Number1' })).toBeNull();
  });
});
