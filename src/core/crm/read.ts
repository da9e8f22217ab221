/**
 * The CRM connection as the operator faces show it: which CRM the config names, the environment
 * variable that holds its token, and whether that variable is set. Never the token itself.
 * (Separate from the sync's own modules: it reads the config section, not the database.)
 */
export interface CrmConnection {
  /** `hubspot`, or null when the config has no `crm` section (nothing syncs). */
  crm: string | null;
  /** The variable named by `crm.hubspot.tokenEnv`, or null. */
  tokenEnv: string | null;
  /** Whether that variable holds a value in the server's environment. */
  tokenSet: boolean;
}

export function crmConnection(config: { hubspot?: { tokenEnv: string } | undefined } | undefined, vars: NodeJS.ProcessEnv = process.env): CrmConnection {
  const tokenEnv = config?.hubspot?.tokenEnv ?? null;
  if (tokenEnv === null) return { crm: null, tokenEnv: null, tokenSet: false };
  const value = vars[tokenEnv];
  return { crm: 'hubspot', tokenEnv, tokenSet: value !== undefined && value.trim() !== '' };
}
