import { ProtocolError, ProtocolErrorCode, type GetPromptResult, type Prompt } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Ctx } from '../core/context.js';
import { describeIssue } from '../core/validation.js';
import type { Tool } from '../tools/define.js';

/**
 * An MCP prompt: a conversation opener the user picks in the client (a slash command), which
 * hands the assistant a plan written against this server's tools. Adding one is a definePrompt
 * call here and an entry in PROMPTS; nothing else changes.
 */
export interface PromptSpec<A extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  /** The arguments the user fills in. MCP passes every prompt argument as a string. */
  args: A;
  /**
   * The tools the plan calls. When a connection does not offer some of them, the text says
   * which, and how the user adds them, rather than sending the assistant after tools it lacks.
   */
  uses: readonly string[];
  /** The plan: one user message of text. */
  text(ctx: Ctx, args: z.output<A>): string;
}

export interface PromptDef {
  name: string;
  listing: Prompt;
  get(ctx: Ctx, offered: ReadonlyMap<string, Tool>, raw: Record<string, string>): GetPromptResult;
}

export function definePrompt<A extends z.ZodObject>(spec: PromptSpec<A>): PromptDef {
  const listing: Prompt = {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    arguments: Object.entries(spec.args.shape).map(([name, schema]) => ({
      name,
      description: (schema as z.ZodType).description,
      required: !(schema as z.ZodType).safeParse(undefined).success,
    })),
  };
  return {
    name: spec.name,
    listing,
    get(ctx, offered, raw) {
      const parsed = spec.args.safeParse(raw);
      if (!parsed.success) {
        const issues = parsed.error.issues.map((issue) => describeIssue(issue)).join('; ');
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid arguments for prompt ${spec.name}: ${issues}`);
      }
      const missing = spec.uses.filter((t) => !offered.has(t));
      const preface = missing.length
        ? `Note: this connection does not offer ${missing.join(', ')}. Before starting, tell the user to add the manage toolset: ` +
          'append ?toolsets=manage to the MCP URL (HTTP), or set OUTREACH_TOOLSETS=manage (stdio), then reconnect.\n\n'
        : '';
      return {
        description: spec.description,
        messages: [{ role: 'user', content: { type: 'text', text: preface + spec.text(ctx, parsed.data) } }],
      };
    },
  };
}

const optionalText = (description: string) =>
  z
    .string()
    .trim()
    .max(500)
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .describe(description);

/** From an empty workspace to a running campaign, with the manage tools. */
export const startOutreachPrompt = definePrompt({
  name: 'start_outreach',
  title: 'Start outreach',
  description: 'Walks from an empty workspace to a running campaign: account, agent with its messages, campaign, leads, start.',
  args: z.object({
    audience: optionalText('Who to reach, e.g. "heads of engineering at fintech startups in Germany".'),
    offer: optionalText('What the messages offer or ask for, e.g. "a 20-minute demo of our test automation".'),
    seedProfile: optionalText('A LinkedIn profile URL of an ideal contact, to find similar people with a Lookalike campaign.'),
  }),
  uses: [
    'list_accounts',
    'connect_account',
    'list_agents',
    'create_agent',
    'preview_agent',
    'create_campaign',
    'add_leads_batch',
    'get_campaign',
    'start_campaign',
  ],
  text: (_ctx, { audience, offer, seedProfile }) =>
    [
      'Help me start LinkedIn outreach with this server, from nothing to a running campaign. Work step by step, show me what you are about to do before each write, and stop to ask whenever you need something only I know.',
      '',
      audience ? `Audience: ${audience}.` : 'First ask me who I want to reach.',
      offer ? `Offer: ${offer}.` : 'Ask me what the messages should offer or ask for.',
      '',
      '1. Accounts. Call list_accounts. If no account is connected, call connect_account with a name I choose; in production it returns connectUrl: give me that link and wait until I say I have signed in, then check list_accounts again. New accounts warm up with low daily limits; tell me so.',
      '2. Agent. Call list_agents. If none fits, draft a connection note (at most 300 characters) and two or three short follow-ups with delays in days, using placeholders such as {{firstName|there}}. Show me the drafts, then call create_agent with the connected account. Call preview_agent on one lead later to show me a rendered example.',
      '3. Campaign. Call create_campaign with a clear name and the agent.',
      seedProfile
        ? `4. Leads. Call create_lookalike_campaign with seed ${seedProfile} and campaignId set to the new campaign, or ask me for profile URLs and add them with add_leads_batch (1 credit per new lead; check get_credits first).`
        : '4. Leads. Ask me for LinkedIn profile URLs and add them with add_leads_batch (1 credit per new lead; check get_credits first), or, given one ideal profile, use create_lookalike_campaign on the new campaign.',
      '5. Check. Call get_campaign: it must have its agent, a connected account and leads. Fix what is missing.',
      '6. Start. Summarise the campaign for me (account, agent, number of leads, daily limits) and, once I agree, call start_campaign. The server may ask me to confirm; that is expected.',
      '',
      'Finish by telling me how to follow progress: get_campaign for the funnel, get_recent_activity with type=reply_received for replies.',
    ].join('\n'),
});

/** Every prompt, in listing order. */
export const PROMPTS: readonly PromptDef[] = [startOutreachPrompt];

const promptByName = new Map(PROMPTS.map((p) => [p.name, p]));

export function listPrompts(_offered: ReadonlyMap<string, Tool>): Prompt[] {
  return PROMPTS.map((p) => p.listing);
}

export function getPrompt(ctx: Ctx, offered: ReadonlyMap<string, Tool>, name: string, args: Record<string, string>): GetPromptResult {
  const prompt = promptByName.get(name);
  if (!prompt) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt "${name}". Call prompts/list for the available prompts.`, { name });
  return prompt.get(ctx, offered, args);
}
