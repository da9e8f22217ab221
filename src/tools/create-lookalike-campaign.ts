import { z } from 'zod';
import { countryHint, isCountryCode } from '../core/lookalike/countries.js';
import {
  launchLookalike,
  LOOKALIKE_DEFAULT_LEADS,
  LOOKALIKE_MAX_LEADS,
  LookalikeResult,
  lookalikePlanRefusal,
  lookalikeProgress,
  lookalikeSteps,
} from '../core/lookalike/launch.js';
import { parseSeed, SEED_HINT } from '../core/lookalike/query.js';
import { defineTool, Reply } from './define.js';
import { CampaignId } from './params.js';

export const MAX_TITLE_KEYWORDS = 15;
export const MAX_TITLE_KEYWORD_LENGTH = 80;
export const MAX_COUNTRIES = 25;

const Keyword = z
  .string()
  .max(MAX_TITLE_KEYWORD_LENGTH)
  .refine((k) => k.trim() !== '', 'must not be blank; omit jobTitleKeywords to match any title');

const Country = z
  .string()
  .superRefine((code, ctx) => {
    if (!/^[A-Za-z]{2}$/.test(code) || !isCountryCode(code)) ctx.addIssue({ code: 'custom', message: countryHint(code) });
  })
  .meta({ pattern: '^[A-Za-z]{2}$' });

/**
 * Hints: not read-only (it creates a campaign and spends allowance); not destructive (it only
 * adds); not idempotent without a key (a repeat creates another campaign or extends again);
 * open-world (the leads come from the network).
 */
export const createLookalikeCampaignTool = defineTool({
  name: 'create_lookalike_campaign',
  title: 'Create or extend a Lookalike campaign',
  description:
    'Adds people like a seed profile as leads to a new campaign or campaignId, from the Lookalike allowance, never credits. Answers at the launch: poll get_campaign. With a progressToken it first waits for the build (up to 50 s), reporting each stage as progress.',
  input: z.strictObject({
    seed: z
      .string()
      .max(2048)
      .transform((text, ctx) => {
        const seed = parseSeed(text);
        if (seed === null) ctx.addIssue({ code: 'custom', message: `must be ${SEED_HINT}; websites and domains are not accepted` });
        return seed ?? z.NEVER;
      })
      .describe(`The person to find lookalikes of: ${SEED_HINT}.`),
    jobTitleKeywords: z
      .union([Keyword, z.array(Keyword).max(MAX_TITLE_KEYWORDS), z.null()], {
        // A union's own failure says only "Invalid input": name what it takes instead.
        error: `a keyword or a list of at most ${MAX_TITLE_KEYWORDS} keywords, each ${MAX_TITLE_KEYWORD_LENGTH} characters at most and not blank`,
      })
      .optional()
      .describe('Keep people whose job title contains any of these (partial, any case).'),
    countries: z.array(Country).max(MAX_COUNTRIES).nullish().describe('ISO 3166-1 alpha-2 codes (e.g. ["US", "GB"]); omit for worldwide.'),
    numberOfLeads: z
      .number()
      .int()
      .min(1)
      .max(LOOKALIKE_MAX_LEADS)
      .nullish()
      .describe(`How many leads to add (default ${LOOKALIKE_DEFAULT_LEADS}); lowered to the Lookalike allowance left.`),
    campaignId: CampaignId.nullish().describe(
      'Only to extend an existing campaign (from list_campaigns). Omit it to create a new campaign; its id is made by the server.',
    ),
    leadDuplicateProtectionAcrossCampaigns: z.boolean().nullish().describe('Default true: skip people who are already leads in any other campaign.'),
  }),
  output: LookalikeResult,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  rateLimit: 'lookalike',
  http: { method: 'POST', path: '/campaigns/lookalike' },
  createsCampaign: true,
  idempotent: true,
  // Every success keeps its key, the 202 included: a retry with it must never launch twice.
  keepKey: () => true,
  errors: ['lookalike_exhausted', 'insufficient_lookalike_credits', 'not_found', 'conflict'],
  planGate: lookalikePlanRefusal,
  accepted:
    'The server could not confirm that the job was queued (same body; `message` says what to check). Check get_campaign before retrying, and retry with a new Idempotency-Key.',
  // A task follows the build itself: it completes when the search ends, not when it is queued.
  task: {
    follow: (ctx, body) => {
      const progress = lookalikeProgress(ctx, LookalikeResult.parse(body));
      const step = progress.step ? { step: progress.step } : {};
      return progress.done ? { done: true, body: progress.result, message: progress.result.message, ...step } : { ...progress, ...step };
    },
  },
  handler: (ctx, input, caller) => {
    const keywords = input.jobTitleKeywords ?? [];
    const launched = launchLookalike(ctx, caller.workspace, {
      seed: input.seed,
      jobTitleKeywords: typeof keywords === 'string' ? [keywords] : keywords,
      countries: input.countries ?? [],
      numberOfLeads: input.numberOfLeads ?? LOOKALIKE_DEFAULT_LEADS,
      campaignId: input.campaignId ?? undefined,
      protectAcrossCampaigns: input.leadDuplicateProtectionAcrossCampaigns ?? true,
    });
    // The handler ends at the launch; the build goes on in the background. Its first step is
    // the queued build; an MCP face that has a progress token follows the rest (`task.follow`),
    // a task follows it, and the campaign's resource tells a subscriber of every lead it adds.
    caller.progress?.(0, lookalikeSteps(launched.result.lookalikeReserved), `Queued: up to ${launched.result.lookalikeReserved} leads to find`);
    return launched.confirmed ? launched.result : new Reply(202, launched.result);
  },
});
