import { z } from 'zod';
import { definePrompt } from './define.js';

const optionalText = (description: string) =>
  z
    .string()
    .trim()
    .max(500)
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .describe(description);

/** `start_outreach`: from an empty workspace to a running campaign, with the manage tools. */
export const startOutreachPrompt = definePrompt({
  name: 'start_outreach',
  title: 'Start outreach',
  description: 'Walks from an empty workspace to a running campaign: account, agent with its messages, campaign, leads, start.',
  args: z.object({
    audience: optionalText('Who to reach, e.g. "heads of engineering at fintech startups in Germany".'),
    offer: optionalText('What the messages offer or ask for, e.g. "a 20-minute demo of our test automation".'),
    seedProfile: optionalText('A LinkedIn profile URL of an ideal contact, to find similar people with a Lookalike campaign.'),
  }),
  toolset: 'manage',
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
