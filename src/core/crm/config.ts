import { z } from 'zod';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The polling interval when the config gives none: five minutes, far under HubSpot's rate limits. */
export const DEFAULT_POLL_SECONDS = 300;

/**
 * The `crm.hubspot` section of the config. The token is never in the file: `tokenEnv` names the
 * environment variable that holds it (a HubSpot private app's access token), read by the adapter
 * and never stored or logged.
 */
export const HubSpotConfig = z.strictObject({
  tokenEnv: z.string().regex(ENV_NAME, 'must be the name of an environment variable, e.g. HUBSPOT_TOKEN'),
  /** The deal pipeline `Meeting request` and `Interested` open deals in; absent, HubSpot's default pipeline. */
  pipelineId: z.string().trim().min(1).max(100).optional(),
  /** The stage of that pipeline a new deal starts in; absent, the pipeline's first stage. */
  stageId: z.string().trim().min(1).max(100).optional(),
  /** Our account (`acc_…`) or mailbox (`mbx_…`) id to the HubSpot owner id who gets the deals of its leads. */
  ownerMap: z.record(z.string().trim().min(1).max(64), z.string().regex(/^\d{1,20}$/, 'must be a HubSpot owner id (digits)')).optional(),
  /** How often contacts changed in HubSpot are read (lifecycle stage, do not contact); default 300. */
  pollSeconds: z.number().min(1).max(86_400).optional(),
  /** The API's address, for a proxy or a local stand-in; absent, https://api.hubapi.com. */
  basePath: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. https://api.hubapi.com' }).optional(),
});
export type HubSpotConfig = z.infer<typeof HubSpotConfig>;

/** The `crm` section: one CRM, HubSpot for now. Absent, nothing CRM-related runs. */
export const CrmConfig = z.strictObject({ hubspot: HubSpotConfig });
export type CrmConfig = z.infer<typeof CrmConfig>;

/** What core needs of the config to decide what to push and when to pull (Ctx.crm). */
export interface CrmSync {
  /** The adapter's name, as the config spells it and the link and pull state store it. */
  crm: 'hubspot';
  pipelineId: string | null;
  stageId: string | null;
  ownerMap: Readonly<Record<string, string>>;
  pollMs: number;
}

/** The context's CRM settings from the config section; undefined when there is none. */
export function crmSyncOf(config: CrmConfig | undefined): CrmSync | undefined {
  const hubspot = config?.hubspot;
  if (!hubspot) return undefined;
  return {
    crm: 'hubspot',
    pipelineId: hubspot.pipelineId ?? null,
    stageId: hubspot.stageId ?? null,
    ownerMap: hubspot.ownerMap ?? {},
    pollMs: Math.round((hubspot.pollSeconds ?? DEFAULT_POLL_SECONDS) * 1000),
  };
}

/** The variable named for the token when it is not set (the server warns and pushes wait), else null. */
export function missingCrmToken(config: CrmConfig | undefined, vars: NodeJS.ProcessEnv = process.env): string | null {
  const name = config?.hubspot.tokenEnv;
  if (name === undefined) return null;
  const value = vars[name];
  return value === undefined || value === '' ? name : null;
}
