import type { LimitsConfig } from '../../src/core/ratelimit/config.js';
import type { WorkspaceFileInput } from '../../src/core/seed/file.js';

export const BENCH_KEY = 'sk_test_bench_key_00000000000000000000001';
/** A key with every part of a scope, so a call pays for each check: read-only, one toolset, one campaign, an expiry. */
export const SCOPED_BENCH_KEY = 'sk_test_bench_scoped_key_000000000000001';
/** The campaign the fixture fills with a million leads. */
export const LIST_CAMPAIGN = 'cmp_bench';
/** Batch adds go to their own campaign, so the list cases read the same million leads throughout. */
export const ADD_CAMPAIGN = 'cmp_adds';

/** A paid workspace with the bench key and credits for every lead the batch cases add. */
export const benchWorkspace = (): WorkspaceFileInput => ({
  workspace: { name: 'Bench', plan: 'paid', planId: 'growth' },
  credits: { credits: 1_000_000_000 },
  apiKeys: [
    { key: BENCH_KEY, name: 'bench' },
    {
      key: SCOPED_BENCH_KEY,
      name: 'bench scoped',
      scope: { readOnly: true, toolsets: ['standard'], campaignIds: [LIST_CAMPAIGN], expiresAt: '2099-01-01T00:00:00.000Z' },
    },
  ],
  accounts: [{ id: 'acc_bench', name: 'Bench account', status: 'connected' }],
  agents: [{ id: 'tpl_bench', name: 'Bench agent', accountId: 'acc_bench' }],
  campaigns: [
    { id: LIST_CAMPAIGN, name: 'A million leads', status: 'READY_TO_SEND', assignedTemplateId: 'tpl_bench' },
    { id: ADD_CAMPAIGN, name: 'Batch adds', status: 'READY_TO_SEND', assignedTemplateId: 'tpl_bench' },
  ],
});

/** Limits no case reaches (the config maximum), so the server answers 200 throughout. */
export function raisedLimits(rateClasses: readonly string[]): LimitsConfig {
  const high = 1_000_000;
  return {
    globalPerMinute: high,
    perMinute: Object.fromEntries(rateClasses.map((c) => [c, high])),
    accountSpacingSeconds: { profile_lookup: 0, people_search: 0 },
    authFailuresPerMinute: high,
  };
}

/** A 100-item add_leads_batch body whose profile URLs no other request uses. */
export function batchBody(tag: string, n: number, size = 100): string {
  const leads = Array.from({ length: size }, (_, i) => ({
    networkUrl: `https://www.linkedin.com/in/bench-${tag}-${n.toString(36)}-${i}`,
    firstName: 'Bench',
    lastName: `Lead ${i}`,
    jobTitle: 'Engineer',
    companyName: 'Bench Co',
    location: 'London',
  }));
  return JSON.stringify({ leads });
}

/** A JSON-RPC request body for the MCP endpoint (stateless: no initialize needed). */
export const rpc = (method: string, params?: unknown): string => JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) });

export const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } as const;

/** A stateless 2026-07-28 request: the revision's `_meta` envelope, and its standard headers (SEP-2243). */
export function modernRpc(method: string, params: Record<string, unknown>): { body: string; headers: Record<string, string> } {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const name: Record<string, string> = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  return {
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta } }),
    headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...name },
  };
}
