// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { dashboardCallTool, fetchSession } from '../dashboard/api.js';
import { SignedOut } from '../dashboard/App.js';
import { ToolError } from '../shared/seam.js';

afterEach(() => {
  vi.unstubAllGlobals();
  cleanup();
});

const answer = (status: number, body: unknown) =>
  vi.fn(async () => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } }));

describe("the dashboard's callTool", () => {
  it('posts { name, arguments } to the one call endpoint with the session cookie', async () => {
    const result = { structuredContent: { credits: 5 }, content: [{ type: 'text', text: '{"credits":5}' }], isError: false };
    const fetch = answer(200, result);
    vi.stubGlobal('fetch', fetch);
    const onUnauthorized = vi.fn();
    expect(await dashboardCallTool(onUnauthorized)('get_credits', {})).toEqual(result);
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/call');
    expect(init).toMatchObject({ method: 'POST', credentials: 'include' });
    expect(JSON.parse(String(init.body))).toEqual({ name: 'get_credits', arguments: {} });
    expect(onUnauthorized).not.toHaveBeenCalled();
  });

  it('sends every 401 to the one handler, with how to get a new link', async () => {
    vi.stubGlobal('fetch', answer(401, { error: { code: 'unauthorized', message: 'No dashboard session.', details: {} } }));
    const onUnauthorized = vi.fn();
    const call = dashboardCallTool(onUnauthorized)('list_campaigns', {});
    await expect(call).rejects.toMatchObject({ code: 'unauthorized', message: expect.stringContaining('npx outreach login') });
    expect(onUnauthorized).toHaveBeenCalledTimes(1);
  });

  it("turns another refusal into a ToolError with the server's code and message", async () => {
    vi.stubGlobal('fetch', answer(403, { error: { code: 'forbidden', message: 'Cross-origin request refused.', details: {} } }));
    const error = await dashboardCallTool(vi.fn())('get_credits', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect(error).toMatchObject({ code: 'forbidden', message: 'Cross-origin request refused.' });
  });

  it('reads no session as signed out, with the login command the server names', async () => {
    vi.stubGlobal('fetch', answer(401, { error: { code: 'unauthorized', message: 'x', details: {} } }));
    expect(await fetchSession()).toEqual({ signedOut: 'npx outreach login' });
    const named = "npx outreach login --db <the server's database file>";
    vi.stubGlobal('fetch', answer(401, { error: { code: 'unauthorized', message: 'x', details: { loginCommand: named } } }));
    expect(await fetchSession()).toEqual({ signedOut: named });
    const onUnauthorized = vi.fn();
    await expect(dashboardCallTool(onUnauthorized)('get_credits', {})).rejects.toMatchObject({ message: expect.stringContaining(named) });
    expect(onUnauthorized).toHaveBeenCalledWith(named);
  });

  it('shows the signed-out page with the login command and no workspace data', () => {
    render(<SignedOut />);
    expect(screen.getByRole('heading', { level: 1, name: 'Signed out' })).toBeTruthy();
    expect(screen.getByText('npx outreach login')).toBeTruthy();
    // A member is told their own link is made with --member, and that a disabled member's session ends.
    expect(screen.getByText('--member')).toBeTruthy();
    expect(screen.getByText(/ask the workspace’s owner/)).toBeTruthy();
    cleanup();
    render(<SignedOut command="npx outreach login --db <the server's database file>" />);
    expect(screen.getByText("npx outreach login --db <the server's database file>")).toBeTruthy();
  });
});
