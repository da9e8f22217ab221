import type { CrmPort } from '../../core/network/crm.js';
import { HubSpotCrm } from './hubspot/index.js';

export { HubSpotCrm, type HubSpotOptions } from './hubspot/index.js';

/**
 * The CRM settings the adapters read: one key per CRM, at most one set. HubSpot's pipeline, stage
 * and owner map are core's (they decide what a deal carries); the adapter needs only the token's
 * variable, and `basePath` for the local stand-in in tests and benches.
 */
export interface CrmAdapterConfig {
  hubspot?: { tokenEnv: string; basePath?: string; timeoutMs?: number } | undefined;
}

/**
 * Builds the configured CRM adapter, or null when no CRM is configured. A second CRM is one
 * folder next to `hubspot/` and one branch here.
 */
export function createCrm(config: CrmAdapterConfig | undefined, env: NodeJS.ProcessEnv): CrmPort | null {
  const hubspot = config?.hubspot;
  if (hubspot) {
    return new HubSpotCrm({
      tokenEnv: hubspot.tokenEnv,
      env,
      ...(hubspot.basePath !== undefined ? { basePath: hubspot.basePath } : {}),
      ...(hubspot.timeoutMs !== undefined ? { timeoutMs: hubspot.timeoutMs } : {}),
    });
  }
  return null;
}
