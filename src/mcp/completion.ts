import { ProtocolError, ProtocolErrorCode, type CompleteRequestParams, type CompleteResult } from '@modelcontextprotocol/server';
import { completeAccountIds } from '../core/accounts/complete.js';
import { completeAgentIds } from '../core/agents/complete.js';
import { completeCampaignIds } from '../core/campaigns/complete.js';
import type { Completion } from '../core/completion/match.js';
import type { Ctx } from '../core/context.js';
import { withReach } from '../core/auth/scope.js';
import { admit, type Entrant } from '../tools/pipeline.js';
import type { NamedThing } from '../tools/prompts/define.js';
import { PROMPTS } from '../tools/prompts/index.js';

/** What an argument names by its name alone, on every prompt and resource template. */
const BY_NAME: Readonly<Record<string, NamedThing>> = { campaignId: 'campaign', agentId: 'agent', accountId: 'account' };

const COMPLETERS: Readonly<Record<NamedThing, (ctx: Ctx, typed: string) => Completion>> = {
  campaign: (ctx, typed) => completeCampaignIds(ctx, typed),
  campaign_with_pending_drafts: (ctx, typed) => completeCampaignIds(ctx, typed, { withPendingDrafts: true }),
  agent: completeAgentIds,
  account: completeAccountIds,
};

const NOTHING: CompleteResult['completion'] = { values: [], total: 0, hasMore: false };

/** The variable names of an RFC 6570 template (`{campaignId}`, `{?cursor,limit}`, `{+path*}`). */
function templateVariables(uri: string): Set<string> {
  const names = new Set<string>();
  for (const [, expression] of uri.matchAll(/\{([^}]*)\}/g)) {
    for (const spec of (expression ?? '').replace(/^[+#./;?&]/, '').split(',')) names.add(spec.replace(/(\*|:\d+)$/, '').trim());
  }
  return names;
}

/** What the argument of this reference names; undefined when it names nothing (free text). */
function namedBy(params: CompleteRequestParams): NamedThing | undefined {
  const { ref, argument } = params;
  if (ref.type === 'ref/prompt') {
    const prompt = PROMPTS.find((p) => p.name === ref.name);
    if (!prompt)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt "${ref.name}". Call prompts/list for the available prompts.`, {
        name: ref.name,
      });
    if (!(argument.name in prompt.args.shape)) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${prompt.name} has no argument "${argument.name}".`, { argument: argument.name });
    }
    return (prompt.names as Partial<Record<string, NamedThing>> | undefined)?.[argument.name] ?? BY_NAME[argument.name];
  }
  if (!templateVariables(ref.uri).has(argument.name)) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `The resource template ${ref.uri} has no variable "${argument.name}".`, {
      argument: argument.name,
    });
  }
  return BY_NAME[argument.name];
}

/**
 * completion/complete: for an argument that names a campaign, an agent or an account, the ids
 * of the caller's workspace that the typed value starts or whose names contain it (see
 * src/core/completion); nothing for free-text arguments. The caller is admitted first, so a
 * revoked key completes nothing.
 */
export function completeArgument(ctx: Ctx, entrant: Entrant, params: CompleteRequestParams): CompleteResult {
  const auth = admit(ctx, entrant);
  if (!auth.ok) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, auth.error.message, auth.error.toBody());
  const named = namedBy(params);
  if (!named) return { completion: NOTHING };
  const { values, total, hasMore } = COMPLETERS[named](withReach(ctx, auth.caller.reach ?? null), params.argument.value);
  return { completion: { values, total, hasMore } };
}
