import { withAuditSync } from '../audit/scope.js';
import type { Ctx } from '../context.js';
import { type CodeRequest, issueAuthorizationCode } from './oauth.js';

/**
 * A person's consent on the OAuth page: the grant and its authorization code, with the grant's
 * one event in the audit trail, written by the key that was pasted (it is the key's power the
 * client receives). The event names the client, the grant and any campaigns the grant is held
 * to, so the trail shows when an assistant was let in, before it writes anything.
 */
export function grantClientAccess(ctx: Ctx, req: CodeRequest): string {
  const scope = req.keyScope;
  const call = {
    actor: { type: 'key' as const, id: req.apiKeyId },
    action: 'oauth.grant',
    targets: [req.clientId, ...(scope?.campaignIds ?? [])],
    summary: `Grant an OAuth client ${scope?.readOnly ? 'read-only ' : ''}access`,
  };
  return withAuditSync(ctx, call, () => issueAuthorizationCode(ctx, req));
}
